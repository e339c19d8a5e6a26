import { describe, expect, it } from "vitest";
import type { OrderRequest } from "../../src/engine/types.js";
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
    expect(sl.reason).toBe("position closed by order 3"); // cancelled when the sell filled
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

// A leg belongs to the units its entry opened (its lot). When anything else closes that lot, the
// legs are cancelled ("position closed"); a partial close shrinks them to what is left of it.
describe("bracket legs belong to their entry's lot", () => {
  const buy = (n: number, extra: Partial<OrderRequest> = {}): OrderRequest => ({
    symbol: "X",
    side: "buy",
    size: { kind: "qty", qty: n },
    ...extra,
  });
  const sell = (n: number): OrderRequest => ({
    symbol: "X",
    side: "sell",
    size: { kind: "qty", qty: n },
  });
  const weight = (w: number): OrderRequest => ({
    symbol: "X",
    size: { kind: "weight", weight: w },
  });

  it("a close by another order cancels the legs, so they never sell a later entry", () => {
    const X = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 102, 98, 101], // entry A (1) fills at 100; take-profit 2 at 110
        [102, 103, 100, 102], // closePosition (3) fills at 102
        [104, 105, 103, 104], // entry B (4), no bracket, fills at 104
        [105, 111, 104, 108], // high 111: A's take-profit would sell B at 110
      ]),
    );
    const r = run(
      X,
      {},
      {
        0: (b, i) => b.submit(buy(10, { takeProfit: 110 }), i),
        1: (b, i) => b.submit(weight(0), i),
        2: (b, i) => b.submit(buy(10), i),
      },
    );
    expect(r.fills.map((f) => [f.orderId, f.side, f.qty, f.price])).toEqual([
      [1, "buy", 10, 100],
      [3, "sell", 10, 102],
      [4, "buy", 10, 104],
    ]);
    const tp = orderById(r, 2);
    expect(tp.status).toBe("cancelled");
    expect(tp.reason).toMatch(/^position closed/);
    const cancel = only(ofType(r.events, "order_cancelled"));
    expect(cancel.order.id).toBe(2);
    expect(cancel.index).toBe(2); // when the close filled, not when the leg would have
    expect(r.broker.portfolio.qty[0]).toBe(10);
    expect(r.broker.portfolio.cash).toBe(8_980); // 10000 − 1000 + 1020 − 1040
    expect(r.equity[4]).toBe(10_060); // 8980 + 10 × 108
  });

  it("a reversal closes the lot: its legs are cancelled and do not touch the position after it", () => {
    const X = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 102, 98, 101], // entry (1) at 100; stop-loss 2 at 95, take-profit 3 at 110
        [102, 103, 100, 102], // weight −0.5 (4): equity 10020 → −floor(5010 / 102) = −49, sell 59
        [100, 101, 99, 100], // weight 0.5 (5): equity 15018 − 4900 = 10118 → 50, buy 99
        [105, 111, 104, 108], // high 111 would fill the old take-profit
      ]),
    );
    const r = run(
      X,
      { allowShort: true },
      {
        0: (b, i) => b.submit(buy(10, { stopLoss: 95, takeProfit: 110 }), i),
        1: (b, i) => b.submit(weight(-0.5), i),
        2: (b, i) => b.submit(weight(0.5), i),
      },
    );
    expect(r.fills.map((f) => [f.orderId, f.side, f.qty, f.price])).toEqual([
      [1, "buy", 10, 100],
      [4, "sell", 59, 102],
      [5, "buy", 99, 100],
    ]);
    for (const id of [2, 3]) {
      expect(orderById(r, id).status).toBe("cancelled");
      expect(orderById(r, id).reason).toMatch(/^position closed/);
    }
    expect(ofType(r.events, "order_cancelled").map((e) => [e.order.id, e.index])).toEqual([
      [2, 2],
      [3, 2],
    ]);
    expect(r.broker.portfolio.qty[0]).toBe(50);
    expect(r.broker.portfolio.cash).toBe(5_118); // 10000 − 1000 + 6018 − 9900
    expect(r.equity[4]).toBe(10_518); // 5118 + 50 × 108
  });

  it("a partial close shrinks the legs to what is left of the lot; a leg sells only its own lot", () => {
    const X = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 102, 98, 101], // entry A (1) 10 at 100; take-profit 2
        [102, 103, 100, 102], // plain entry B (3) 10 at 102
        [104, 105, 103, 104], // sell 4 (4): first in, first out, from lot A → A has 6 left
        [105, 111, 104, 108], // take-profit sells A's 6 at 110, not 10
      ]),
    );
    const r = run(
      X,
      {},
      {
        0: (b, i) => b.submit(buy(10, { takeProfit: 110 }), i),
        1: (b, i) => b.submit(buy(10), i),
        2: (b, i) => b.submit(sell(4), i),
      },
    );
    expect(r.fills.map((f) => [f.orderId, f.side, f.qty, f.price])).toEqual([
      [1, "buy", 10, 100],
      [3, "buy", 10, 102],
      [4, "sell", 4, 104],
      [2, "sell", 6, 110],
    ]);
    expect(r.trades.map((t) => [t.entryOrderId, t.exitOrderId, t.qty, t.pnl])).toEqual([
      [1, 4, 4, 16], // 4 × (104 − 100)
      [1, 2, 6, 60], // 6 × (110 − 100)
    ]);
    expect(orderById(r, 2).status).toBe("filled");
    expect(orderById(r, 2).filledQty).toBe(6);
    expect(r.broker.portfolio.qty[0]).toBe(10); // lot B, untouched
    expect(r.broker.portfolio.cash).toBe(9_056); // 10000 − 1000 − 1020 + 416 + 660
    expect(r.equity[4]).toBe(10_136); // 9056 + 10 × 108
  });

  it("a leg closes its own entry's units even when an older lot is held", () => {
    const X = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 102, 98, 101], // plain entry (1) 10 at 100
        [102, 103, 100, 102], // bracketed entry (2) 10 at 102; stop-loss 3 at 95
        [98, 99, 94, 96], // stop-loss fills at 95
      ]),
    );
    const r = run(
      X,
      {},
      {
        0: (b, i) => b.submit(buy(10), i),
        1: (b, i) => b.submit(buy(10, { stopLoss: 95 }), i),
      },
    );
    const t = only(r.trades);
    expect([t.entryOrderId, t.exitOrderId, t.entryPrice, t.exitPrice, t.pnl]).toEqual([
      2,
      3,
      102,
      95,
      -70, // 10 × (95 − 102), not the older lot's 10 × (95 − 100)
    ]);
    expect(r.broker.portfolio.qty[0]).toBe(10);
    expect(r.broker.portfolio.avgPrice(0)).toBe(100); // the plain lot is what remains
  });
});

// Orders due at the open fill before anything later in the bar (path open → high → low → close).
describe("open first within a bar", () => {
  it("a market close queued at t's close fills at t+1's open, before a stop-loss inside t+1", () => {
    const X = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 102, 98, 101], // entry (1) at 100; stop-loss 2 at 95
        [97, 98, 94, 96], // the close (3) fills at the open 97; the low 94 comes later
      ]),
    );
    const r = run(
      X,
      {},
      {
        0: (b, i) => b.submit({ ...entry, takeProfit: undefined }, i),
        1: (b, i) => b.submit({ symbol: "X", size: { kind: "weight", weight: 0 } }, i),
      },
    );
    expect(r.fills.map((f) => [f.orderId, f.price, f.basis])).toEqual([
      [1, 100, "open"],
      [3, 97, "open"],
    ]);
    expect(orderById(r, 2).status).toBe("cancelled");
    expect(orderById(r, 2).reason).toMatch(/^position closed/);
    expect(orderById(r, 3).status).toBe("filled");
    expect(only(r.trades).pnl).toBe(-30); // 10 × (97 − 100), not the stop's 10 × (95 − 100)
    expect(r.broker.portfolio.cash).toBe(9_970);
  });

  it("a take-profit gapped through at the open fills there, before a stop-loss later in the bar", () => {
    const X = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 102, 98, 101], // entry at 100
        [111, 112, 94, 100], // opens above the take-profit 110; the low 94 (≤ 95) comes after
      ]),
    );
    const r = run(X, {}, { 0: (b, i) => b.submit(entry, i) });
    expect(r.fills.map((f) => [f.orderId, f.price, f.basis])).toEqual([
      [1, 100, "open"],
      [3, 111, "gap"], // max(open 111, limit 110)
    ]);
    expect(orderById(r, 2).status).toBe("cancelled");
    expect(orderById(r, 2).reason).toContain("one-cancels-other");
    expect(only(r.trades).pnl).toBe(110);
  });
});
