import { describe, expect, it } from "vitest";
import { brokerFees, FeeModelError, feeFunction } from "../../src/engine/fee-model.js";
import type { OrderRequest } from "../../src/engine/types.js";
import { daily, only, run, type Script, series } from "./helpers.js";

const X = series(
  "X",
  daily("2021-03-01", [
    [100, 101, 99, 100],
    [99, 100, 98, 99],
    [101, 103, 100, 102],
    [102, 104, 101, 103],
  ]),
);
const qty = (side: "buy" | "sell", n: number): OrderRequest => ({
  symbol: "X",
  side,
  size: { kind: "qty", qty: n },
});
const fraction = (f: number): OrderRequest => ({
  symbol: "X",
  side: "buy",
  size: { kind: "fraction", fraction: f },
});
const weight = (w: number): OrderRequest => ({ symbol: "X", size: { kind: "weight", weight: w } });

describe("the fee model", () => {
  it("the default is the config's rate of notional plus the fixed fee on an order's first fill", () => {
    const fees = brokerFees({ commissionRate: 0.002, commissionFixed: 3 });
    // 0.2 % of 10 × 50 = 500 is 1, plus the fixed 3 on the first fill.
    expect(fees.commission(10, 50, true)).toBeCloseTo(4, 12);
    expect(fees.commission(10, 50, false)).toBeCloseTo(1, 12);
    expect(fees.linear).toEqual({ rate: 0.002, fixed: 3 });
  });

  it("a fee function equal to a rate charges and sizes as that rate does", () => {
    const script: Script = {
      0: (b, i) => b.submit(fraction(1), i),
      1: (b, i) => b.submit(weight(-0.5), i),
      2: (b, i) => b.submit(weight(0.3), i),
    };
    const config = { fractional: false, allowShort: true };
    const byRate = run(X, { ...config, commissionRate: 0.01 }, script);
    const byFunction = run(
      X,
      config,
      script,
      feeFunction((u, p) => u * p * 0.01),
    );
    // Sizing by the closed form and by searching the unit grid give the same units.
    expect(byFunction.fills.map((f) => [f.qty, f.price])).toEqual(
      byRate.fills.map((f) => [f.qty, f.price]),
    );
    expect(byFunction.fills.length).toBe(3);
    for (const [k, f] of byFunction.fills.entries())
      expect(f.commission).toBeCloseTo(byRate.fills[k]?.commission ?? Number.NaN, 9);
    expect(byFunction.equity.at(-1)).toBeCloseTo(byRate.equity.at(-1) ?? Number.NaN, 9);
  });

  it("a fraction order buys the most units whose value and fee fit the budget, for any fee", () => {
    // A minimum fee of 25, else 1 %: at 99 a unit, 100 units cost 9900 + 99 = 9999.
    const fee = (u: number, p: number) => Math.max(25, u * p * 0.01);
    for (const fractional of [false, true]) {
      const r = run(X, { fractional }, { 0: (b, i) => b.submit(fraction(1), i) }, feeFunction(fee));
      const f = only(r.fills);
      const step = fractional ? 1e-8 : 1;
      expect(f.qty * f.price + fee(f.qty, f.price)).toBeLessThanOrEqual(10_000);
      const more = f.qty + step;
      expect(more * f.price + fee(more, f.price)).toBeGreaterThan(10_000);
      expect(f.commission).toBe(fee(f.qty, f.price));
      expect(r.broker.portfolio.cash).toBeGreaterThanOrEqual(0);
    }
  });

  it("is called on every fill, and a flat fee is charged on entry and exit", () => {
    const calls: [number, number][] = [];
    const r = run(
      X,
      {},
      { 0: (b, i) => b.submit(qty("buy", 10), i), 1: (b, i) => b.submit(qty("sell", 10), i) },
      feeFunction((u, p) => {
        calls.push([u, p]);
        return 2;
      }),
    );
    expect(calls).toEqual(r.fills.map((f) => [f.qty, f.price]));
    expect(r.fills.map((f) => f.commission)).toEqual([2, 2]);
    expect(only(r.trades).commission).toBe(4);
    expect(r.broker.portfolio.cash).toBe(10_000 - 10 * 99 + 10 * 101 - 4);
  });

  for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, -1]) {
    it(`a fee of ${bad} stops the run with a FeeModelError naming the order and the value`, () => {
      const attempt = () =>
        run(
          X,
          {},
          { 1: (b, i) => b.submit(qty("buy", 7), i) },
          feeFunction(() => bad),
        );
      expect(attempt).toThrow(FeeModelError);
      expect(attempt).toThrow(`the fee function returned ${bad} for order 1 (7 units at 101)`);
    });
  }
});
