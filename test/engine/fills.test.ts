import { describe, expect, it } from "vitest";
import { daily, only, orderById, run, series } from "./helpers.js";

const buy = (qty: number) => ({
  symbol: "X",
  side: "buy" as const,
  size: { kind: "qty" as const, qty },
});
const sell = (qty: number) => ({
  symbol: "X",
  side: "sell" as const,
  size: { kind: "qty" as const, qty },
});

describe("market orders", () => {
  // bar 0: o100 h102 l99 c101 | bar 1: o102 h105 l101 c104 | bar 2: o104 h106 l103 c105
  const X = series(
    "X",
    daily("2021-03-01", [
      [100, 102, 99, 101],
      [102, 105, 101, 104],
      [104, 106, 103, 105],
    ]),
  );

  it("fills at the next bar's open, not the decision bar's close; equity marked at the close", () => {
    const r = run(X, {}, { 0: (b, i) => b.submit(buy(10), i) });
    const f = only(r.fills);
    expect(f.index).toBe(1); // decided at close of bar 0 → eligible from bar 1
    expect(f.price).toBe(102); // bar 1 open, not bar 0 close (101)
    expect(f.rawPrice).toBe(102);
    expect(f.basis).toBe("open");
    expect(r.equity[0]).toBe(10_000); // nothing filled yet
    expect(r.equity[1]).toBe(10_020); // cash 10000 - 10×102 = 8980, + 10 × close 104 = 10020
    expect(r.equity[2]).toBe(10_030); // 8980 + 10 × 105 = 10030
    expect(r.broker.portfolio.cash).toBe(8_980);
  });

  it("tradeOnClose: fills at the decision bar's close", () => {
    const r = run(X, { tradeOnClose: true }, { 0: (b, i) => b.submit(buy(10), i) });
    const f = only(r.fills);
    expect(f.index).toBe(0);
    expect(f.price).toBe(101); // bar 0 close
    expect(f.basis).toBe("close");
    expect(r.equity[0]).toBe(10_000); // 10000 - 1010 + 10 × 101
    expect(r.equity[1]).toBe(10_030); // 8990 + 10 × 104 = 10030
  });
});

describe("limit orders", () => {
  const limitBuy = (limitPrice: number) => ({ ...buy(10), type: "limit" as const, limitPrice });

  it("limit buy without a gap fills at the limit", () => {
    const X = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 101, 94, 97], // low 94 ≤ 95, open 100 > 95 → fills at 95
      ]),
    );
    const r = run(X, {}, { 0: (b, i) => b.submit(limitBuy(95), i) });
    const f = only(r.fills);
    expect(f.index).toBe(1);
    expect(f.price).toBe(95);
    expect(f.basis).toBe("limit");
    expect(r.broker.portfolio.cash).toBe(9_050); // 10000 - 10×95
    expect(r.equity[1]).toBe(10_020); // 9050 + 10×97
  });

  it("limit buy with a gap down fills at the (better) open", () => {
    const X = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [93, 96, 92, 95], // opens at 93 < 95 → min(open, limit) = 93
      ]),
    );
    const r = run(X, {}, { 0: (b, i) => b.submit(limitBuy(95), i) });
    const f = only(r.fills);
    expect(f.price).toBe(93);
    expect(f.basis).toBe("gap");
    expect(r.broker.portfolio.cash).toBe(9_070); // 10000 - 930
  });

  it("limit sell mirrors: fills at the limit, or at a higher open on a gap up", () => {
    // bar 1 market buy at open 100; bar 2: high 106 ≥ 105 with open 101 → 105.
    const noGap = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 102, 99, 101],
        [101, 106, 100, 104],
      ]),
    );
    const limitSell = { ...sell(10), type: "limit" as const, limitPrice: 105 };
    const a = run(
      noGap,
      {},
      { 0: (b, i) => b.submit(buy(10), i), 1: (b, i) => b.submit(limitSell, i) },
    );
    const fa = a.fills[1];
    expect(fa?.price).toBe(105);
    expect(fa?.basis).toBe("limit");
    expect(fa?.index).toBe(2);
    expect(only(a.trades).pnl).toBe(50); // 10 × (105 - 100)

    // Gap up: bar 2 opens 108 > 105 → max(open, limit) = 108.
    const gap = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 102, 99, 101],
        [108, 109, 106, 107],
      ]),
    );
    const g = run(
      gap,
      {},
      { 0: (b, i) => b.submit(buy(10), i), 1: (b, i) => b.submit(limitSell, i) },
    );
    expect(g.fills[1]?.price).toBe(108);
    expect(g.fills[1]?.basis).toBe("gap");
    expect(only(g.trades).pnl).toBe(80); // 10 × (108 - 100)
  });

  it("limit not reached stays working", () => {
    const X = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 101, 91, 95], // low 91 > 90
        [95, 97, 90.5, 96], // low 90.5 > 90
      ]),
    );
    const r = run(X, {}, { 0: (b, i) => b.submit(limitBuy(90), i) });
    expect(r.fills).toHaveLength(0);
    expect(orderById(r, 1).status).toBe("working");
    expect(r.broker.workingOrders().map((o) => o.id)).toEqual([1]);
    expect(r.broker.portfolio.cash).toBe(10_000);
  });
});

describe("stop orders", () => {
  it("stop buy with a gap up fills at the open, worse than the stop", () => {
    const X = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [107, 110, 106, 108], // opens 107 above stop 105 → max(open, stop) = 107
      ]),
    );
    const r = run(
      X,
      {},
      {
        0: (b, i) => b.submit({ ...buy(10), type: "stop", stopPrice: 105 }, i),
      },
    );
    const f = only(r.fills);
    expect(f.price).toBe(107);
    expect(f.basis).toBe("gap");
    expect(r.broker.portfolio.cash).toBe(8_930); // 10000 - 1070
  });

  it("stop buy without a gap fills at the stop", () => {
    const X = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [101, 106, 100, 104], // high 106 ≥ 105, open 101 < 105 → 105
      ]),
    );
    const r = run(
      X,
      {},
      {
        0: (b, i) => b.submit({ ...buy(10), type: "stop", stopPrice: 105 }, i),
      },
    );
    expect(only(r.fills).price).toBe(105);
    expect(only(r.fills).basis).toBe("stop");
  });

  it("stop sell without a gap fills at the stop", () => {
    const X = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 102, 98, 101], // market buy fills at 100
        [99, 100, 93, 94], // low 93 ≤ 95, open 99 > 95 → 95
      ]),
    );
    const r = run(
      X,
      {},
      {
        0: (b, i) => b.submit(buy(10), i),
        1: (b, i) => b.submit({ ...sell(10), type: "stop", stopPrice: 95 }, i),
      },
    );
    const f = r.fills[1];
    expect(f?.index).toBe(2);
    expect(f?.price).toBe(95);
    expect(f?.basis).toBe("stop");
    expect(only(r.trades).pnl).toBe(-50); // 10 × (95 - 100)
    expect(r.broker.portfolio.qty[0]).toBe(0);
  });
});

describe("costs", () => {
  const X = series(
    "X",
    daily("2021-03-01", [
      [100, 101, 99, 100],
      [100, 102, 99, 101],
      [110, 111, 109, 110],
    ]),
  );

  it("commission on both legs (rate + fixed): exact cash, trade pnl and commission", () => {
    const r = run(
      X,
      { commissionRate: 0.001, commissionFixed: 1 },
      { 0: (b, i) => b.submit(buy(10), i), 1: (b, i) => b.submit(sell(10), i) },
    );
    const [entry, exit] = r.fills;
    // entry: 10 × 100 × 0.001 + 1 = 2
    expect(entry?.commission).toBeCloseTo(2, 10);
    // exit: 10 × 110 × 0.001 + 1 = 2.1
    expect(exit?.commission).toBeCloseTo(2.1, 10);
    // after entry: 10000 - 1000 - 2 = 8998 (equity at bar 1 close 101: 8998 + 1010 = 10008)
    expect(r.equity[1]).toBeCloseTo(10_008, 9);
    // after exit: 8998 + 1100 - 2.1 = 10095.9
    expect(r.broker.portfolio.cash).toBeCloseTo(10_095.9, 9);
    const t = only(r.trades);
    expect(t.pnl).toBeCloseTo(95.9, 9); // 10 × (110 - 100) - 2 - 2.1
    expect(t.commission).toBeCloseTo(4.1, 9); // 2 + 2.1
    expect(t.returnPct).toBeCloseTo(0.0959, 12); // 95.9 / (100 × 10)
    expect(r.broker.portfolio.totalCommission).toBeCloseTo(4.1, 9);
  });

  it("slippage rate: a buy fills above the open, a sell below, by rate × price", () => {
    const r = run(
      X,
      { slippageRate: 0.01 },
      { 0: (b, i) => b.submit(buy(10), i), 1: (b, i) => b.submit(sell(10), i) },
    );
    const [entry, exit] = r.fills;
    expect(entry?.rawPrice).toBe(100);
    expect(entry?.price).toBeCloseTo(101, 10); // 100 × 1.01
    expect(entry?.slippage).toBeCloseTo(10, 9); // |101 - 100| × 10
    expect(exit?.rawPrice).toBe(110);
    expect(exit?.price).toBeCloseTo(108.9, 10); // 110 × 0.99
    expect(exit?.slippage).toBeCloseTo(11, 9); // |108.9 - 110| × 10
    const t = only(r.trades);
    expect(t.pnl).toBeCloseTo(79, 9); // 10 × (108.9 - 101)
    expect(t.slippage).toBeCloseTo(21, 9); // 10 + 11
    expect(r.broker.portfolio.cash).toBeCloseTo(10_079, 9); // 10000 - 1010 + 1089
  });

  it("slippage ticks: k × tick size, used instead of the rate", () => {
    const r = run(
      X,
      { slippageRate: 0.01, slippageTicks: 2, tickSize: 0.05 },
      { 0: (b, i) => b.submit(buy(10), i), 1: (b, i) => b.submit(sell(10), i) },
    );
    const [entry, exit] = r.fills;
    expect(entry?.price).toBeCloseTo(100.1, 10); // 100 + 2 × 0.05
    expect(entry?.slippage).toBeCloseTo(1, 9); // 0.1 × 10
    expect(exit?.price).toBeCloseTo(109.9, 10); // 110 - 2 × 0.05
    expect(exit?.slippage).toBeCloseTo(1, 9);
  });

  it("limit fills get no slippage; stop fills do", () => {
    const Y = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 106, 94, 100], // limit buy 95 touched; stop buy 105 touched
      ]),
    );
    const r = run(
      Y,
      { slippageRate: 0.01 },
      {
        0: (b, i) => {
          b.submit({ ...buy(1), type: "limit", limitPrice: 95 }, i);
          b.submit({ ...buy(1), type: "stop", stopPrice: 105 }, i);
        },
      },
    );
    const [lim, stp] = r.fills;
    expect(lim?.price).toBe(95); // a limit never fills worse than its limit
    expect(lim?.slippage).toBe(0);
    expect(stp?.rawPrice).toBe(105);
    expect(stp?.price).toBeCloseTo(106.05, 10); // 105 × 1.01
    expect(stp?.slippage).toBeCloseTo(1.05, 10); // 1.05 × 1 unit
  });
});
