import { describe, expect, it } from "vitest";
import type { OrderRequest } from "../../src/engine/types.js";
import { daily, ofType, only, run, series } from "./helpers.js";

const qty = (symbol: string, side: "buy" | "sell", n: number): OrderRequest => ({
  symbol,
  side,
  size: { kind: "qty", qty: n },
});

// A trades five days; B's data ends after three (2021-03-03), two bars before the timeline does.
const A = series(
  "A",
  daily("2021-03-01", [
    [100, 100, 100, 100],
    [100, 102, 100, 102], // buy 10 at 100
    [104, 104, 104, 104],
    [106, 106, 106, 106],
    [108, 108, 108, 108],
  ]),
);
const B = series(
  "B",
  daily("2021-03-01", [
    [50, 50, 50, 50],
    [50, 52, 50, 52], // buy 20 at 50
    [53, 55, 53, 55], // B's last bar: closed at 55 (data_ended)
  ]),
);

describe("a symbol whose data ends before the timeline", () => {
  it("is closed at its last close, flagged data_ended, and never valued stale", () => {
    const r = run(
      [A, B],
      {},
      {
        0: (b, i) => {
          b.submit(qty("A", "buy", 10), i);
          b.submit(qty("B", "buy", 20), i);
        },
        // At B's last bar the strategy cannot know it is the last: the order is accepted, then
        // cancelled at the close with the reason.
        2: (b, i) => b.submit({ ...qty("B", "buy", 5), type: "limit", limitPrice: 40 }, i),
        3: (b, i) => b.submit(qty("B", "buy", 1), i),
      },
    );
    // bar 1: cash 10,000 − 1,000 − 1,000 = 8,000; equity 8,000 + 10 × 102 + 20 × 52 = 10,060
    // bar 2: B sold 20 × 55 = 1,100 → cash 9,100; equity 9,100 + 10 × 104 = 10,140
    // bars 3, 4: A alone, 9,100 + 1,060 and 9,100 + 1,080
    expect(r.equity).toEqual([10_000, 10_060, 10_140, 10_160, 10_180]);
    expect(r.broker.portfolio.cash).toBe(9_100);
    expect(Array.from(r.broker.portfolio.qty)).toEqual([10, 0]);
    const trade = only(r.trades);
    expect(trade).toMatchObject({
      symbol: "B",
      side: "long",
      qty: 20,
      entryIndex: 1,
      entryPrice: 50,
      exitIndex: 2,
      exitPrice: 55,
      pnl: 100,
      exitReason: "data_ended",
    });
    const exit = r.fills.find((f) => f.symbol === "B" && f.side === "sell");
    expect(exit).toMatchObject({ qty: 20, price: 55, index: 2, basis: "data_ended" });
    const limit = r.orders[2];
    expect(limit?.status).toBe("cancelled");
    expect(limit?.reason).toBe(
      "the data of B ended on 2021-03-03: no bar left to fill on (its position is closed at that close, data_ended)",
    );
    const late = r.orders.find((o) => o.submittedIndex === 3);
    expect(late?.status).toBe("rejected");
    expect(late?.reason).toBe(
      "the data of B ended on 2021-03-03: no bar left to fill on (its position is closed at that close, data_ended)",
    );
    expect(r.broker.account().positions.map((p) => p.symbol)).toEqual(["A"]);
  });

  it("pays commission and slippage on the closing fill like a market order at the close", () => {
    const r = run(
      [A, B],
      { commissionRate: 0.01, slippageRate: 0.01 },
      {
        0: (b, i) => b.submit(qty("B", "buy", 20), i),
      },
    );
    // entry 20 × 50.5 (open + 1 %) = 1,010, commission 10.10 → cash 8,979.90
    // exit 20 × 54.45 (close − 1 %) = 1,089, commission 10.89 → cash 10,058.01
    const trade = only(r.trades);
    expect(trade.exitPrice).toBeCloseTo(54.45, 10);
    expect(trade.pnl).toBeCloseTo(20 * (54.45 - 50.5) - 10.1 - 10.89, 9);
    expect(trade.exitReason).toBe("data_ended");
    expect(r.broker.portfolio.cash).toBeCloseTo(10_058.01, 9);
    expect(r.equity[4]).toBeCloseTo(10_058.01, 9);
  });

  it("closes shorts too, and cancels the position's bracket legs", () => {
    const r = run(
      [A, B],
      { allowShort: true },
      {
        0: (b, i) => b.submit({ ...qty("B", "sell", 10), stopLoss: 80, takeProfit: 20 }, i),
      },
    );
    const trade = only(r.trades);
    expect(trade).toMatchObject({ side: "short", entryPrice: 50, exitPrice: 55, pnl: -50 });
    expect(trade.exitReason).toBe("data_ended");
    const legs = r.orders.filter((o) => o.parentId !== null);
    expect(legs.map((o) => o.status)).toEqual(["cancelled", "cancelled"]);
    expect(r.broker.portfolio.qty[1]).toBe(0);
    expect(r.equity[4]).toBe(10_000 - 50);
  });

  it("a trade-on-close order at the last bar fills first; what is held is then closed", () => {
    const r = run(
      [A, B],
      { tradeOnClose: true },
      {
        0: (b, i) => b.submit(qty("B", "buy", 20), i), // fills at bar 0's close, 50
        2: (b, i) => b.submit(qty("B", "sell", 5), i), // fills at bar 2's close, 55
      },
    );
    expect(r.trades.map((t) => [t.qty, t.exitPrice, t.exitReason ?? null])).toEqual([
      [5, 55, null],
      [15, 55, "data_ended"],
    ]);
    expect(r.equity[4]).toBe(10_000 + 20 * 5);
  });

  it("leaves symbols that end with the timeline alone, and emits nothing when flat", () => {
    const r = run([A, B], {}, { 0: (b, i) => b.submit(qty("A", "buy", 1), i) });
    expect(r.trades).toEqual([]);
    expect(ofType(r.events, "order_accepted")).toHaveLength(1);
    expect(r.broker.portfolio.qty[0]).toBe(1);
  });

  it("a symbol that starts late cannot hold a position before its first bar", () => {
    const late = series(
      "L",
      daily("2021-03-03", [
        [10, 10, 10, 10],
        [11, 11, 11, 11],
        [12, 12, 12, 12],
      ]),
    );
    const r = run([A, late], {}, { 0: (b, i) => b.submit(qty("L", "buy", 100), i) });
    // The order waits for L's first bar (index 2) and fills at its open, 10.
    expect(only(r.fills)).toMatchObject({ index: 2, price: 10 });
    expect(r.equity).toEqual([10_000, 10_000, 10_000, 10_100, 10_200]);
  });
});
