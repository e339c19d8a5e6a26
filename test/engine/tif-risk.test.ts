import { describe, expect, it } from "vitest";
import type { OrderRequest, TimeInForce } from "../../src/engine/types.js";
import { daily, ofType, only, orderById, run, series } from "./helpers.js";

const limitBuy = (limitPrice: number, tif: TimeInForce): OrderRequest => ({
  symbol: "X",
  side: "buy",
  type: "limit",
  size: { kind: "qty", qty: 10 },
  limitPrice,
  tif,
});
const qty = (side: "buy" | "sell", n: number, symbol = "X"): OrderRequest => ({
  symbol,
  side,
  size: { kind: "qty", qty: n },
});

describe("time in force", () => {
  // Tue 2021-03-02 10:00, 11:00, 12:00, then Wed 2021-03-03 10:00, 11:00.
  const hourly = (lows: readonly [number, number, number, number, number]) =>
    series("X", [
      ["2021-03-02T10:00", 100, 101, lows[0], 100, 1000],
      ["2021-03-02T11:00", 100, 101, lows[1], 100, 1000],
      ["2021-03-02T12:00", 100, 101, lows[2], 100, 1000],
      ["2021-03-03T10:00", 100, 101, lows[3], 100, 1000],
      ["2021-03-03T11:00", 100, 101, lows[4], 100, 1000],
    ]);

  it("DAY expires after its first eligible day and never fills on the next", () => {
    // limit 90; day 1 lows stay at 95; day 2 reaches 89 but the order is gone by then.
    const r = run(
      hourly([95, 95, 95, 89, 89]),
      {},
      {
        0: (b, i) => b.submit(limitBuy(90, { kind: "day" }), i),
      },
    );
    expect(r.fills).toHaveLength(0);
    const o = orderById(r, 1);
    expect(o.status).toBe("expired");
    expect(o.dayKey).toBe("2021-03-02"); // its first eligible bar is bar 1, on day 1
    const exp = only(ofType(r.events, "order_expired"));
    // Expired at the close of bar 2, the last bar of day 1 (after that bar's decision).
    expect(exp.index).toBe(2);
    expect(r.broker.portfolio.cash).toBe(10_000);
  });

  it("DAY placed at the last bar of a day is good for the whole next day", () => {
    // placed at bar 2 (12:00 day 1) → first eligible bar is bar 3 (day 2); bar 4 low 89 ≤ 90
    const r = run(
      hourly([95, 95, 95, 95, 89]),
      {},
      {
        2: (b, i) => b.submit(limitBuy(90, { kind: "day" }), i),
      },
    );
    const f = only(r.fills);
    expect(f.index).toBe(4);
    expect(f.price).toBe(90);
    expect(orderById(r, 1).status).toBe("filled");
  });

  it("{bars: 2} may fill on the next 2 bars and expires before the third", () => {
    const r = run(
      hourly([95, 95, 95, 89, 89]),
      {},
      {
        0: (b, i) => b.submit(limitBuy(90, { kind: "bars", bars: 2 }), i),
      },
    );
    // eligible bars 1 and 2 (lows 95); it expires right after its last chance, in bar 2, so the
    // decision at bar 2 already sees it gone and bar 3 (low 89) cannot fill it
    expect(r.fills).toHaveLength(0);
    expect(orderById(r, 1).status).toBe("expired");
    expect(only(ofType(r.events, "order_expired")).index).toBe(2);
  });

  it("{bars: 2} still fills on its second bar", () => {
    const r = run(
      hourly([95, 95, 89, 89, 89]),
      {},
      {
        0: (b, i) => b.submit(limitBuy(90, { kind: "bars", bars: 2 }), i),
      },
    );
    expect(only(r.fills).index).toBe(2);
    expect(orderById(r, 1).status).toBe("filled");
  });

  it("GTC stays working across days until it can fill", () => {
    const r = run(
      hourly([95, 95, 95, 95, 89]),
      {},
      {
        0: (b, i) => b.submit(limitBuy(90, { kind: "gtc" }), i),
      },
    );
    const f = only(r.fills);
    expect(f.index).toBe(4); // waited through day 1 and the first bar of day 2
    expect(f.price).toBe(90);
    expect(ofType(r.events, "order_expired")).toHaveLength(0);
  });
});

describe("risk limits", () => {
  const X = series(
    "X",
    daily("2021-03-01", [
      [100, 101, 99, 100],
      [100, 101, 99, 100],
      [100, 101, 99, 100],
    ]),
  );

  it("maxPositionWeight rejects a too-large buy (long side)", () => {
    const risk = { maxPositionWeight: 0.5 };
    // buy 60 at 100: cash 4000, position 6000, equity 10000 → weight 0.6 > 0.5
    const big = run(X, { risk }, { 0: (b, i) => b.submit(qty("buy", 60), i) });
    const rej = only(ofType(big.events, "order_rejected"));
    expect(rej.reason).toContain("position weight 60.00%");
    expect(big.fills).toHaveLength(0);
    // buy 50: weight exactly 0.5 → allowed
    const ok = run(X, { risk }, { 0: (b, i) => b.submit(qty("buy", 50), i) });
    expect(only(ok.fills).qty).toBe(50);
  });

  it("maxPositionWeight rejects a too-large short (short side)", () => {
    const cfg = { allowShort: true, risk: { maxPositionWeight: 0.5 } };
    // short 60 at 100: cash 16000 (margin needs 9000, fine), short 6000, equity 10000 → 0.6 > 0.5
    const big = run(X, cfg, { 0: (b, i) => b.submit(qty("sell", 60), i) });
    const rej = only(ofType(big.events, "order_rejected"));
    expect(rej.reason).toContain("position weight 60.00%");
    expect(big.broker.portfolio.qty[0]).toBe(0);
    const ok = run(X, cfg, { 0: (b, i) => b.submit(qty("sell", 50), i) });
    expect(ok.broker.portfolio.qty[0]).toBe(-50);
  });

  it("maxOpenPositions with two symbols rejects the second position", () => {
    const Y = series(
      "Y",
      daily("2021-03-01", [
        [50, 51, 49, 50],
        [50, 51, 49, 50],
      ]),
    );
    const r = run(
      [X, Y],
      { risk: { maxOpenPositions: 1 } },
      {
        0: (b, i) => {
          b.submit(qty("buy", 10, "X"), i);
          b.submit(qty("buy", 10, "Y"), i);
        },
      },
    );
    expect(only(r.fills).symbol).toBe("X");
    const rej = only(ofType(r.events, "order_rejected"));
    expect(rej.order.symbol).toBe("Y");
    expect(rej.reason).toContain("2 open positions would exceed max 1");
    expect(r.broker.portfolio.qty[0]).toBe(10); // X
    expect(r.broker.portfolio.qty[1]).toBe(0); // Y never opened
  });

  it("maxGrossExposure counts long and short notional", () => {
    const Y = series(
      "Y",
      daily("2021-03-01", [
        [100, 101, 99, 100],
        [100, 101, 99, 100],
        [100, 101, 99, 100],
      ]),
    );
    const cfg = { allowShort: true, risk: { maxGrossExposure: 1 } };
    // long X 60 (6000); then short Y 50: cash 4000 + 5000 = 9000, equity 9000 + 6000 - 5000 = 10000,
    // gross (6000 + 5000) / 10000 = 1.1 > 1 → rejected; short 40 → (6000 + 4000) / 10000 = 1 → ok
    const big = run([X, Y], cfg, {
      0: (b, i) => b.submit(qty("buy", 60, "X"), i),
      1: (b, i) => b.submit(qty("sell", 50, "Y"), i),
    });
    expect(only(ofType(big.events, "order_rejected")).reason).toContain("gross exposure 110.00%");
    const ok = run([X, Y], cfg, {
      0: (b, i) => b.submit(qty("buy", 60, "X"), i),
      1: (b, i) => b.submit(qty("sell", 40, "Y"), i),
    });
    expect(ok.broker.portfolio.qty[1]).toBe(-40);
  });

  it("haltDrawdown cancels working orders, flattens at the next open and rejects new orders", () => {
    const D = series(
      "X",
      daily("2021-03-01", [
        [100, 101, 99, 100], // equity 10000 (peak)
        [100, 101, 94, 95], // buy 100 at 100 → cash 0; equity 9500 (dd 5%)
        [94, 95, 88, 89], // equity 8900: dd 1 - 8900/10000 = 11% ≥ 10% → halt
        [88, 91, 87, 90], // flatten: sell 100 at 88 → cash 8800
        [90, 92, 89, 91],
      ]),
    );
    const r = run(
      D,
      { risk: { haltDrawdown: 0.1 } },
      {
        0: (b, i) => b.submit(qty("buy", 100), i),
        1: (b, i) => b.submit({ ...qty("buy", 1), type: "limit", limitPrice: 50 }, i),
        3: (b, i) => b.submit(qty("buy", 1), i),
      },
    );
    expect(r.equity).toEqual([10_000, 9_500, 8_900, 8_800, 8_800]);
    expect(r.broker.halted).toBe(true);
    const cancelled = only(ofType(r.events, "order_cancelled"));
    expect(cancelled.order.id).toBe(2);
    expect(cancelled.index).toBe(2);
    expect(cancelled.reason).toContain("trading halted");
    // the flatten order (id 3) fills at the next open
    expect(r.fills.map((f) => [f.orderId, f.index, f.side, f.qty, f.price])).toEqual([
      [1, 1, "buy", 100, 100],
      [3, 3, "sell", 100, 88],
    ]);
    expect(only(r.trades).pnl).toBe(-1_200); // 100 × (88 - 100)
    const rej = only(ofType(r.events, "order_rejected"));
    expect(rej.order.id).toBe(4);
    expect(rej.index).toBe(3);
    expect(rej.reason).toContain("trading halted");
    expect(r.broker.portfolio.qty[0]).toBe(0);
  });
});
