import { describe, expect, it } from "vitest";
import type { OrderRequest } from "../../src/engine/types.js";
import { daily, run, type Script, series } from "./helpers.js";

const qty = (side: "buy" | "sell", n: number): OrderRequest => ({
  symbol: "X",
  side,
  size: { kind: "qty", qty: n },
});

const X = series(
  "X",
  daily("2021-03-01", [
    [100, 101, 99, 100],
    [100, 101, 99, 100], // buy 10 at 100
    [110, 111, 109, 110], // buy 5 at 110
    [120, 121, 119, 120], // sell at 120
    [120, 121, 119, 120],
  ]),
);

describe("FIFO trades", () => {
  it("two buys then one sell of the total → two closed trades with their own entry prices", () => {
    const r = run(
      X,
      { commissionRate: 0.01 },
      {
        0: (b, i) => b.submit(qty("buy", 10), i),
        1: (b, i) => b.submit(qty("buy", 5), i),
        2: (b, i) => b.submit(qty("sell", 15), i),
      },
    );
    expect(r.trades).toHaveLength(2);
    const [t1, t2] = r.trades;
    // lot 1: 10 @ 100, entry commission 10; exit commission 15 × 120 × 0.01 = 18, 10/15 of it = 12
    expect(t1?.qty).toBe(10);
    expect(t1?.entryPrice).toBe(100);
    expect(t1?.entryIndex).toBe(1);
    expect(t1?.exitPrice).toBe(120);
    expect(t1?.entryOrderId).toBe(1);
    expect(t1?.exitOrderId).toBe(3);
    expect(t1?.commission).toBeCloseTo(22, 9); // 10 + 12
    expect(t1?.pnl).toBeCloseTo(178, 9); // 10 × 20 - 10 - 12
    expect(t1?.returnPct).toBeCloseTo(0.178, 12); // 178 / 1000
    // lot 2: 5 @ 110, entry commission 5.5; exit share 5/15 × 18 = 6
    expect(t2?.qty).toBe(5);
    expect(t2?.entryPrice).toBe(110);
    expect(t2?.entryIndex).toBe(2);
    expect(t2?.commission).toBeCloseTo(11.5, 9); // 5.5 + 6
    expect(t2?.pnl).toBeCloseTo(38.5, 9); // 5 × 10 - 5.5 - 6
    // cash: 10000 - 1010 - 555.5 + 1800 - 18 = 10216.5 = 10000 + 178 + 38.5
    expect(r.broker.portfolio.cash).toBeCloseTo(10_216.5, 9);
  });

  it("a partial sell consumes the oldest lot first and leaves the rest of the next", () => {
    const r = run(
      X,
      {},
      {
        0: (b, i) => b.submit(qty("buy", 10), i),
        1: (b, i) => b.submit(qty("buy", 5), i),
        2: (b, i) => b.submit(qty("sell", 12), i),
      },
    );
    expect(r.trades.map((t) => [t.qty, t.entryPrice, t.pnl])).toEqual([
      [10, 100, 200], // 10 × (120 - 100)
      [2, 110, 20], // 2 × (120 - 110)
    ]);
    const pos = r.broker.account().positions;
    expect(pos).toHaveLength(1);
    expect(pos[0]?.qty).toBe(3);
    expect(pos[0]?.avgPrice).toBe(110); // the remaining 3 units come from the 110 lot
  });
});

describe("determinism", () => {
  it("the same script twice gives identical equity, fills and trades", () => {
    const script: Script = {
      0: (b, i) =>
        b.submit({ symbol: "X", side: "buy", size: { kind: "fraction", fraction: 0.7 } }, i),
      1: (b, i) =>
        b.submit({ ...qty("buy", 3), type: "limit", limitPrice: 109.5, stopLoss: 90 }, i),
      2: (b, i) => b.submit({ symbol: "X", size: { kind: "weight", weight: 0.2 } }, i),
      3: (b, i) => b.submit({ symbol: "X", size: { kind: "weight", weight: 0 } }, i),
    };
    const cfg = { commissionRate: 0.0015, commissionFixed: 0.5, slippageRate: 0.0007 };
    const a = run(X, cfg, script);
    const b = run(X, cfg, script);
    expect(a.trades.length).toBeGreaterThan(0);
    expect(b.equity).toEqual(a.equity);
    expect(b.fills).toEqual(a.fills);
    expect(b.trades).toEqual(a.trades);
    expect(b.orders).toEqual(a.orders);
    // every float bit-identical, not just close
    expect(Float64Array.from(b.equity).buffer).toEqual(Float64Array.from(a.equity).buffer);
  });
});
