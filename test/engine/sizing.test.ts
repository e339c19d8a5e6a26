import { describe, expect, it } from "vitest";
import type { OrderRequest } from "../../src/engine/types.js";
import { daily, ofType, only, orderById, run, series } from "./helpers.js";

const qty = (side: "buy" | "sell", n: number, symbol = "X"): OrderRequest => ({
  symbol,
  side,
  size: { kind: "qty", qty: n },
});
const fraction = (side: "buy" | "sell", f: number, symbol = "X"): OrderRequest => ({
  symbol,
  side,
  size: { kind: "fraction", fraction: f },
});
const weight = (w: number, symbol = "X"): OrderRequest => ({
  symbol,
  size: { kind: "weight", weight: w },
});

describe("fraction sizing", () => {
  const X = series(
    "X",
    daily("2021-03-01", [
      [100, 101, 99, 100],
      [99, 100, 98, 99],
    ]),
  );

  it("a 100% buy with commission never overdraws: floor(equity / (price × (1 + rate)))", () => {
    const r = run(X, { commissionRate: 0.01 }, { 0: (b, i) => b.submit(fraction("buy", 1), i) });
    const f = only(r.fills);
    // floor(10000 / (99 × 1.01)) = floor(10000 / 99.99) = floor(100.01) = 100
    // (a naive floor(10000 / 99) = 101 would cost 9999 + 99.99 commission > 10000)
    expect(f.qty).toBe(100);
    expect(f.commission).toBeCloseTo(99, 9); // 100 × 99 × 0.01
    expect(r.broker.portfolio.cash).toBeCloseTo(1, 9); // 10000 - 9900 - 99
    expect(r.broker.portfolio.cash).toBeGreaterThanOrEqual(0);
  });

  it("with a fixed fee the fee comes off the budget first", () => {
    const r = run(
      X,
      { commissionRate: 0.01, commissionFixed: 5 },
      { 0: (b, i) => b.submit(fraction("buy", 1), i) },
    );
    const f = only(r.fills);
    // floor((10000 - 5) / 99.99) = floor(99.96) = 99
    expect(f.qty).toBe(99);
    expect(f.commission).toBeCloseTo(103.01, 9); // 99 × 99 × 0.01 + 5 = 98.01 + 5
    expect(r.broker.portfolio.cash).toBeCloseTo(95.99, 9); // 10000 - 9801 - 103.01
  });
});

describe("cash, shorts and margin", () => {
  const X = series(
    "X",
    daily("2021-03-01", [
      [100, 101, 99, 100],
      [100, 101, 99, 100],
      [100, 101, 99, 100],
    ]),
  );

  it("a qty order worth more than the cash is rejected for insufficient cash", () => {
    const r = run(X, {}, { 0: (b, i) => b.submit(qty("buy", 101), i) }); // 101 × 100 = 10100 > 10000
    const rej = only(ofType(r.events, "order_rejected"));
    expect(rej.index).toBe(1); // affordability is checked when it would fill
    expect(rej.reason).toContain("insufficient cash");
    expect(r.fills).toHaveLength(0);
    expect(orderById(r, 1).status).toBe("rejected");
    expect(r.broker.portfolio.qty[0]).toBe(0);
    expect(r.broker.portfolio.cash).toBe(10_000);
  });

  it("exactly affordable (100 × 100 = 10000) fills and leaves cash 0", () => {
    const r = run(X, {}, { 0: (b, i) => b.submit(qty("buy", 100), i) });
    expect(only(r.fills).qty).toBe(100);
    expect(r.broker.portfolio.cash).toBe(0);
  });

  it("a short without allowShort is rejected", () => {
    const r = run(
      X,
      {},
      {
        0: (b, i) => {
          b.submit(qty("sell", 10), i);
          b.submit(weight(-0.5), i);
        },
      },
    );
    const rej = ofType(r.events, "order_rejected");
    expect(rej.map((e) => e.order.id)).toEqual([2, 1]); // weight rejected at submit, sell at fill
    expect(rej[0]?.reason).toContain("allow-short");
    expect(rej[1]?.reason).toContain("shorting is not allowed");
    expect(r.fills).toHaveLength(0);
    expect(r.broker.portfolio.qty[0]).toBe(0);
  });

  it("a short at the margin boundary is accepted: cash + 100q ≥ 1.5 × 100q ⇔ q ≤ 200", () => {
    const r = run(X, { allowShort: true }, { 0: (b, i) => b.submit(qty("sell", 200), i) });
    // cash after = 10000 + 200 × 100 = 30000; required = (1 + 0.5) × 20000 = 30000
    expect(only(r.fills).qty).toBe(200);
    expect(r.broker.portfolio.qty[0]).toBe(-200);
    expect(r.broker.portfolio.cash).toBe(30_000);
    expect(r.equity[1]).toBe(10_000); // 30000 - 200 × 100
  });

  it("a short one unit beyond the margin is rejected with insufficient margin", () => {
    const r = run(X, { allowShort: true }, { 0: (b, i) => b.submit(qty("sell", 201), i) });
    // cash after = 10000 + 20100 = 30100 < required 1.5 × 20100 = 30150
    const rej = only(ofType(r.events, "order_rejected"));
    expect(rej.reason).toContain("insufficient margin");
    expect(r.fills).toHaveLength(0);
    expect(r.broker.portfolio.cash).toBe(10_000);
  });
});

describe("volume cap", () => {
  it("caps fills at floor(cap × volume) per bar; the remainder fills on the next bar", () => {
    const X = series("X", [
      ["2021-03-01", 100, 101, 99, 100, 50],
      ["2021-03-02", 100, 101, 99, 100, 50], // cap 0.1 × 50 = 5 units
      ["2021-03-03", 102, 103, 101, 102, 50], // remaining 3 units
      ["2021-03-04", 102, 103, 101, 102, 50],
    ]);
    const r = run(
      X,
      { volumeCap: 0.1, commissionFixed: 1 },
      { 0: (b, i) => b.submit(qty("buy", 8), i) },
    );
    expect(r.fills.map((f) => [f.index, f.qty, f.price, f.commission])).toEqual([
      [1, 5, 100, 1], // fixed fee once per order, on its first fill
      [2, 3, 102, 0],
    ]);
    const o = orderById(r, 1);
    expect(o.status).toBe("filled");
    expect(o.filledQty).toBe(8);
    expect(o.avgFillPrice).toBeCloseTo(100.75, 12); // (5 × 100 + 3 × 102) / 8 = 806 / 8
    expect(r.broker.portfolio.cash).toBe(9_193); // 10000 - 500 - 1 - 306
  });
});

describe("target weight and reversals", () => {
  it("a weight the equity cannot buy one unit of is rejected as sizing to zero, not 'already at the target weight'", () => {
    const X = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 101, 99, 100], // cash 50 < one unit at 100: weight 1 and weight -1 both size to 0
        [100, 101, 99, 100], // flat and weight 0: flat is the target
      ]),
    );
    const r = run(
      X,
      { initialCash: 50, allowShort: true },
      {
        0: (b, i) => {
          b.submit(weight(1), i);
          b.submit(weight(-1), i);
        },
        1: (b, i) => b.submit(weight(0), i),
      },
    );
    const zero = "the order sizes to zero units at this price and equity";
    expect(ofType(r.events, "order_rejected").map((e) => [e.order.id, e.index, e.reason])).toEqual([
      [1, 1, zero],
      [2, 1, zero],
    ]);
    expect(ofType(r.events, "order_cancelled").map((e) => [e.order.id, e.reason])).toEqual([
      [3, "already at the target weight"],
    ]);
    expect(orderById(r, 1).status).toBe("rejected");
    expect(r.fills).toHaveLength(0);
    expect(r.broker.portfolio.cash).toBe(50);
  });

  it("a weight whose target rounds to the units held is there already: cancelled", () => {
    const X = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 101, 99, 100], // buy 3 at 100: cash 50 + 300 held
        [100, 101, 99, 100], // weight 1 of equity 350 → floor(3.5) = 3 = held
      ]),
    );
    const r = run(
      X,
      { initialCash: 350 },
      { 0: (b, i) => b.submit(qty("buy", 3), i), 1: (b, i) => b.submit(weight(1), i) },
    );
    expect(ofType(r.events, "order_rejected")).toHaveLength(0);
    expect(ofType(r.events, "order_cancelled").map((e) => [e.order.id, e.reason])).toEqual([
      [2, "already at the target weight"],
    ]);
    expect(r.broker.portfolio.qty[0]).toBe(3);
  });

  it("a target weight tops a position up; weight 0 (closePosition) closes it", () => {
    const X = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 101, 99, 100], // buy 10 at 100
        [100, 101, 99, 100], // weight 0.5: equity 9000 + 10 × 100 = 10000 → floor(5000/100) = 50 → buy 40
        [110, 111, 109, 110], // weight 0: sell 50 at 110
      ]),
    );
    const r = run(
      X,
      {},
      {
        0: (b, i) => b.submit(qty("buy", 10), i),
        1: (b, i) => b.submit(weight(0.5), i),
        2: (b, i) => b.submit(weight(0), i),
      },
    );
    expect(r.fills.map((f) => [f.orderId, f.side, f.qty, f.price])).toEqual([
      [1, "buy", 10, 100],
      [2, "buy", 40, 100],
      [3, "sell", 50, 110],
    ]);
    expect(r.trades.map((t) => [t.qty, t.pnl])).toEqual([
      [10, 100], // 10 × (110 - 100)
      [40, 400], // 40 × (110 - 100)
    ]);
    expect(r.broker.portfolio.qty[0]).toBe(0);
    expect(r.broker.portfolio.cash).toBe(10_500);
    expect(orderById(r, 3).status).toBe("filled");
  });

  it("a full weight with a fixed fee fits the cash: the fee comes off the budget first", () => {
    const X = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 101, 99, 100],
      ]),
    );
    const r = run(X, { commissionFixed: 50 }, { 0: (b, i) => b.submit(weight(1), i) });
    // floor((10000 - 50) / 100) = 99 units; cost 9900 + fee 50 = 9950 <= 10000
    // (without the fee in the budget: 100 units, 10050 > 10000, rejected)
    expect(only(r.fills).qty).toBe(99);
    expect(r.broker.portfolio.cash).toBe(50);
  });

  it("reversal: a close placed before a new short fills first; the short is sized from the equity after it", () => {
    const X = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 101, 99, 100], // buy 50 at 100, commission 50 → cash 4950
        [120, 121, 119, 120], // close 50 at 120, commission 60 → cash 10890; then the short
      ]),
    );
    const r = run(
      X,
      { allowShort: true, commissionRate: 0.01 },
      {
        0: (b, i) => b.submit(qty("buy", 50), i),
        1: (b, i) => {
          b.submit(weight(0), i);
          b.submit(fraction("sell", 0.5), i);
        },
      },
    );
    // short units = floor(10890 × 0.5 / (120 × 1.01)) = floor(5445 / 121.2) = floor(44.93) = 44
    // (sized from the equity before the close, 4950 + 50 × 120 = 10950, it would be
    //  floor(5475 / 121.2) = 45)
    expect(r.fills.map((f) => [f.orderId, f.side, f.qty, f.price])).toEqual([
      [1, "buy", 50, 100],
      [2, "sell", 50, 120],
      [3, "sell", 44, 120],
    ]);
    expect(r.broker.portfolio.qty[0]).toBe(-44);
    // cash = 10890 + 44 × 120 - 52.8 = 16117.2 ; equity at close 120 = 16117.2 - 5280 = 10837.2
    expect(r.broker.portfolio.cash).toBeCloseTo(16_117.2, 9);
    expect(r.equity[2]).toBeCloseTo(10_837.2, 9);
    expect(only(r.trades).pnl).toBeCloseTo(890, 9); // 50 × 20 - 50 - 60
  });

  it("all-in switch between symbols: the close fills first so the new entry can use its proceeds", () => {
    const A = series(
      "A",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 101, 99, 100], // A: 100 units at 100, cash 0
        [110, 111, 109, 110], // A sold at 110 → cash 11000
      ]),
    );
    const B = series(
      "B",
      daily("2021-03-01", [
        [50, 51, 49, 50],
        [50, 51, 49, 50],
        [50, 51, 49, 52], // B bought with 11000 / 50 = 220 units
      ]),
    );
    const r = run(
      [A, B],
      {},
      {
        0: (b, i) => b.submit(fraction("buy", 1, "A"), i),
        1: (b, i) => {
          b.submit(weight(0, "A"), i);
          b.submit(fraction("buy", 1, "B"), i);
        },
      },
    );
    expect(r.fills.map((f) => [f.symbol, f.side, f.qty, f.price])).toEqual([
      ["A", "buy", 100, 100], // floor(10000 / 100)
      ["A", "sell", 100, 110],
      ["B", "buy", 220, 50], // floor(11000 / 50)
    ]);
    expect(r.broker.portfolio.cash).toBe(0);
    expect(r.equity[2]).toBe(11_440); // 220 × close 52
  });
});

// A weight order's target is the largest position whose value plus every cost of the order fits
// the budget equity × |weight|: |T|·p + rate·p·|T − Q| + fixed ≤ budget. On a reversal the order
// also pays the commission on the |Q| units it closes, so the new side is sized smaller.
describe("a reversal pays the costs of the units it reduces", () => {
  // Entry of 50 units at bar 1's open (100); the reversal fills at bar 2's open.
  const at = (p2: number) =>
    series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 101, 99, 100],
        [p2, p2 + 1, p2 - 1, p2],
      ]),
    );
  const reverse = (entry: "buy" | "sell", target: number) => ({
    0: (b: import("../../src/engine/broker.js").Broker, i: number) => b.submit(qty(entry, 50), i),
    1: (b: import("../../src/engine/broker.js").Broker, i: number) => b.submit(weight(target), i),
  });

  it("short → long with a rate: the budget leaves room for the commission on the 50 covered units", () => {
    const r = run(at(99), { allowShort: true, commissionRate: 0.01 }, reverse("sell", 1));
    // bar 1: short 50 at 100, commission 50 → cash 10000 + 5000 − 50 = 14950
    // bar 2 at 99: equity = 14950 − 50 × 99 = 10000
    // target = floor((10000 − 0.01 × 99 × 50) / (99 × 1.01)) = floor(9950.5 / 99.99) = 99
    // (without the covered units' commission: floor(10000 / 99.99) = 100, buy 150 costs
    //  14850 + 148.50 = 14998.50 > 14950, rejected for cash)
    expect(ofType(r.events, "order_rejected")).toHaveLength(0);
    expect(r.fills.map((f) => [f.side, f.qty, f.price])).toEqual([
      ["sell", 50, 100],
      ["buy", 149, 99],
    ]);
    expect(r.fills[1]?.commission).toBeCloseTo(147.51, 9); // 149 × 99 × 0.01
    expect(r.broker.portfolio.qty[0]).toBe(99);
    expect(r.broker.portfolio.cash).toBeCloseTo(51.49, 9); // 14950 − 14751 − 147.51
  });

  it("long → short with a rate (margin 100%): the short is sized after the commission on the 50 sold", () => {
    const r = run(
      at(99),
      { allowShort: true, commissionRate: 0.01, shortMargin: 1 },
      reverse("buy", -1),
    );
    // bar 1: long 50 at 100, commission 50 → cash 4950; bar 2 at 99: equity 4950 + 4950 = 9900
    // target = −floor((9900 − 49.5) / 99.99) = −98 → sell 148
    // cash = 4950 + 148 × 99 − 146.52 = 19455.48 ≥ 2 × 98 × 99 = 19404
    // (unpaid: −99, sell 149 → cash 19553.49 < 2 × 99 × 99 = 19602, rejected for margin)
    expect(ofType(r.events, "order_rejected")).toHaveLength(0);
    expect(r.fills.map((f) => [f.side, f.qty, f.price])).toEqual([
      ["buy", 50, 100],
      ["sell", 148, 99],
    ]);
    expect(r.broker.portfolio.qty[0]).toBe(-98);
    expect(r.broker.portfolio.cash).toBeCloseTo(19_455.48, 9);
    expect(r.equity[2]).toBeCloseTo(9_753.48, 9); // 19455.48 − 98 × 99
  });

  it("short → long with a rate and a fixed fee", () => {
    const r = run(
      at(100),
      { allowShort: true, commissionRate: 0.01, commissionFixed: 5 },
      reverse("sell", 1),
    );
    // bar 1: cash 10000 + 5000 − 50 − 5 = 14945; bar 2 at 100: equity 14945 − 5000 = 9945
    // target = floor((9945 − 5 − 0.01 × 100 × 50) / 101) = floor(9890 / 101) = 97 → buy 147
    // cost 14700 + 147 + 5 = 14852 ≤ 14945 (unpaid: 98, buy 148 costs 14953 > 14945)
    expect(ofType(r.events, "order_rejected")).toHaveLength(0);
    expect(r.fills.map((f) => [f.side, f.qty, f.commission])).toEqual([
      ["sell", 50, 55],
      ["buy", 147, 152],
    ]);
    expect(r.broker.portfolio.qty[0]).toBe(97);
    expect(r.broker.portfolio.cash).toBeCloseTo(93, 9);
  });

  it("long → short with a rate and a fixed fee (margin 100%)", () => {
    const r = run(
      at(100),
      { allowShort: true, commissionRate: 0.01, commissionFixed: 5, shortMargin: 1 },
      reverse("buy", -1),
    );
    // bar 1: cash 10000 − 5000 − 55 = 4945; bar 2 at 100: equity 9945 → target −97, sell 147
    // cash = 4945 + 14700 − 152 = 19493 ≥ 2 × 9700 (unpaid: −98, cash 19592 < 19600)
    expect(ofType(r.events, "order_rejected")).toHaveLength(0);
    expect(r.fills.map((f) => [f.side, f.qty, f.commission])).toEqual([
      ["buy", 50, 55],
      ["sell", 147, 152],
    ]);
    expect(r.broker.portfolio.qty[0]).toBe(-97);
    expect(r.broker.portfolio.cash).toBeCloseTo(19_493, 9);
    expect(r.equity[2]).toBeCloseTo(9_793, 9);
  });
});

describe("a weight order on the same side", () => {
  const X = series(
    "X",
    daily("2021-03-01", [
      [100, 101, 99, 100],
      [100, 101, 99, 100], // buy 50 at 100, commission 50 → cash 4950
      [100, 101, 99, 100], // the weight order: equity 4950 + 5000 = 9950
    ]),
  );
  const cfg = { commissionRate: 0.01 };

  it("adding pays commission only on the added units: n·100 + 1·(n − 50) ≤ 9950 × 0.75", () => {
    const r = run(X, cfg, {
      0: (b, i) => b.submit(qty("buy", 50), i),
      1: (b, i) => b.submit(weight(0.75), i),
    });
    // n = floor((7462.5 + 0.01 × 100 × 50) / 101) = floor(74.38) = 74 → buy 24
    // (74 × 100 + 24 = 7424 ≤ 7462.5; 75 would cost 7500 + 25 = 7525)
    expect(r.fills.map((f) => [f.side, f.qty, f.commission])).toEqual([
      ["buy", 50, 50],
      ["buy", 24, 24],
    ]);
    expect(r.broker.portfolio.cash).toBe(2_526); // 4950 − 2400 − 24
  });

  it("trimming pays commission on the units sold: n·100 + 1·(50 − n) ≤ 9950 × 0.25", () => {
    const r = run(X, cfg, {
      0: (b, i) => b.submit(qty("buy", 50), i),
      1: (b, i) => b.submit(weight(0.25), i),
    });
    // n = floor((2487.5 − 50) / 99) = floor(24.62) = 24 → sell 26
    // (24 × 100 + 26 = 2426 ≤ 2487.5; 25 would cost 2500 + 25 = 2525)
    expect(r.fills.map((f) => [f.side, f.qty, f.commission])).toEqual([
      ["buy", 50, 50],
      ["sell", 26, 26],
    ]);
    expect(r.broker.portfolio.qty[0]).toBe(24);
    expect(r.broker.portfolio.cash).toBe(7_524); // 4950 + 2600 − 26
  });
});

describe("fractional units", () => {
  const X = series(
    "X",
    daily("2021-03-01", [
      [1.1, 1.1, 1.1, 1.1],
      [1.1, 1.1, 1.1, 1.1],
      [1.2, 1.2, 1.2, 1.2],
    ]),
  );

  it("a close sells exactly what is held, leaving no dust below the 1e-8 step", () => {
    // 9090.90909 × 1e8 is 909090908999.99994 in floating point: rounding the close down to the
    // step would sell 9090.90908999 and leave 1e-8 units behind.
    const r = run(
      X,
      { fractional: true },
      {
        0: (b, i) => b.submit(qty("buy", 9090.90909), i),
        1: (b, i) => b.submit(weight(0), i),
      },
    );
    expect(r.fills.map((f) => [f.side, f.qty])).toEqual([
      ["buy", 9090.90909],
      ["sell", 9090.90909],
    ]);
    expect(r.broker.portfolio.qty[0]).toBe(0);
    expect(r.broker.workingOrders()).toHaveLength(0);
    // 10000 − 9090.90909 × 1.1 + 9090.90909 × 1.2 = 10000 + 909.090909
    expect(r.broker.portfolio.cash).toBeCloseTo(10_909.090909, 6);
  });

  it("a sell that would leave less than one step closes the position exactly", () => {
    const r = run(
      X,
      { fractional: true },
      {
        0: (b, i) => b.submit(qty("buy", 2.5), i),
        1: (b, i) => b.submit(qty("sell", 2.499999995), i), // would leave 5e-9 < 1e-8
      },
    );
    expect(r.fills.map((f) => [f.side, f.qty])).toEqual([
      ["buy", 2.5],
      ["sell", 2.5],
    ]);
    expect(r.broker.portfolio.qty[0]).toBe(0);
    expect(orderById(r, 2).status).toBe("filled");
  });
});
