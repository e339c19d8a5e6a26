import { describe, expect, it } from "vitest";
import { daily, ofType, only, orderById, run, series } from "./helpers.js";

// Entry: market buy 10 placed at bar 0, fills at bar 1's open (100). Children: stop-loss (id 2,
// stop sell at 95) and take-profit (id 3, limit sell at 110), created in that order.
const entry = {
  symbol: "X",
  side: "buy" as const,
  size: { kind: "qty" as const, qty: 10 },
  stopLoss: 95,
  takeProfit: 110,
};

describe("brackets", () => {
  it("when a later bar contains both legs, the stop-loss fills and the take-profit is cancelled (OCO)", () => {
    const X = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 102, 98, 101], // entry at 100; neither 95 nor 110 reached
        [100, 111, 94, 100], // high 111 ≥ 110 and low 94 ≤ 95: both could fill
      ]),
    );
    const r = run(X, {}, { 0: (b, i) => b.submit(entry, i) });
    expect(r.fills.map((f) => [f.orderId, f.index, f.price, f.basis])).toEqual([
      [1, 1, 100, "open"],
      [2, 2, 95, "stop"], // stop-loss: min(open 100, stop 95) = 95
    ]);
    const sl = orderById(r, 2);
    const tp = orderById(r, 3);
    expect(sl.parentId).toBe(1);
    expect(sl.ocoId).toBe(3);
    expect(sl.status).toBe("filled");
    expect(tp.status).toBe("cancelled");
    const cancel = only(ofType(r.events, "order_cancelled"));
    expect(cancel.order.id).toBe(3);
    expect(cancel.index).toBe(2);
    expect(cancel.reason).toContain("one-cancels-other");
    const t = only(r.trades);
    expect(t.pnl).toBe(-50); // 10 × (95 - 100)
    expect(r.broker.portfolio.qty[0]).toBe(0);
    expect(r.equity[2]).toBe(9_950); // 10000 - 50, flat
  });

  it("only the take-profit is hit: it fills at its limit and the stop-loss is cancelled", () => {
    const X = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 102, 98, 101],
        [105, 112, 101, 108], // high 112 ≥ 110, low 101 > 95
      ]),
    );
    const r = run(X, {}, { 0: (b, i) => b.submit(entry, i) });
    const exit = r.fills[1];
    expect(exit?.orderId).toBe(3);
    expect(exit?.price).toBe(110); // max(open 105, limit 110) = 110
    expect(exit?.basis).toBe("limit");
    expect(orderById(r, 2).status).toBe("cancelled");
    expect(orderById(r, 3).status).toBe("filled");
    expect(only(r.trades).pnl).toBe(100); // 10 × (110 - 100)
    expect(r.broker.portfolio.cash).toBe(10_100); // 10000 - 1000 + 1100
  });

  it("the stop-loss can fill in the entry bar itself", () => {
    const X = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 101, 94, 96], // entry at the open 100, then the low 94 crosses the stop 95
      ]),
    );
    const r = run(X, {}, { 0: (b, i) => b.submit(entry, i) });
    expect(r.fills.map((f) => [f.orderId, f.index, f.price])).toEqual([
      [1, 1, 100],
      [2, 1, 95], // reference is the entry price 100 (no gap): min(100, 95) = 95
    ]);
    const t = only(r.trades);
    expect(t.entryIndex).toBe(1);
    expect(t.exitIndex).toBe(1);
    expect(t.pnl).toBe(-50); // 10 × (95 - 100)
    expect(orderById(r, 3).status).toBe("cancelled");
    expect(r.equity[1]).toBe(9_950);
  });

  it("a leg whose position was already closed is cancelled and never opens a new position", () => {
    const X = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 102, 98, 101], // entry at 100
        [102, 103, 100, 102], // manual market sell fills at 102
        [96, 97, 90, 91], // low 90 would trigger the stop-loss at 95
      ]),
    );
    const r = run(
      X,
      {},
      {
        0: (b, i) => b.submit({ ...entry, takeProfit: undefined }, i),
        1: (b, i) => b.submit({ symbol: "X", side: "sell", size: { kind: "qty", qty: 10 } }, i),
      },
    );
    // ids: 1 entry, 2 stop-loss, 3 manual sell
    expect(r.fills.map((f) => [f.orderId, f.price])).toEqual([
      [1, 100],
      [3, 102],
    ]);
    const sl = orderById(r, 2);
    expect(sl.status).toBe("cancelled");
    expect(sl.reason).toContain("already closed");
    expect(r.broker.portfolio.qty[0]).toBe(0);
    expect(r.broker.portfolio.cash).toBe(10_020); // 10000 - 1000 + 1020
  });

  // docs/fill-conventions.md assumes the path open → high → low → close, and children only see
  // the part of the entry bar still ahead of the entry. A limit buy at 95 in the bar o100 h106 l94 c96 fills
  // on the way down from the high (100 → 106 → 95 …), so after the entry the price only visits
  // 95 → 94 → 96: a take-profit at 105 cannot be reached in that bar.
  it("a same-bar take-profit is not filled from a high that came before a limit entry", () => {
    const X = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 106, 94, 96],
      ]),
    );
    const r = run(
      X,
      {},
      {
        0: (b, i) =>
          b.submit({ ...entry, type: "limit", limitPrice: 95, stopLoss: 90, takeProfit: 105 }, i),
      },
    );
    expect(r.fills.map((f) => [f.orderId, f.price, f.basis])).toEqual([[1, 95, "limit"]]);
    expect(orderById(r, 3).status).toBe("working"); // take-profit still waiting
    expect(r.broker.portfolio.qty[0]).toBe(10);
    expect(r.equity[1]).toBe(10_010); // cash 10000 - 950 = 9050, + 10 × close 96
  });
});
