import { describe, expect, it } from "vitest";
import { DEFAULT_FILL_MODEL, type FillModel } from "../../src/engine/fill-model.js";
import type { OrderRequest } from "../../src/engine/types.js";
import { daily, only, run, type Script, series } from "./helpers.js";

const X = series(
  "X",
  daily("2021-03-01", [
    [100, 101, 99, 100],
    [102, 104, 97, 103],
    [103, 106, 101, 105],
  ]),
);
const order = (side: "buy" | "sell", extra: Partial<OrderRequest> = {}): OrderRequest => ({
  symbol: "X",
  side,
  size: { kind: "qty", qty: 10 },
  ...extra,
});

describe("the fill model", () => {
  it("the broker asks it where an order fills and what slippage costs", () => {
    // Fills every order at the bar's close, a cent worse.
    const atClose: FillModel = {
      match: (_type, _side, _limit, _stop, bar) => ({ price: bar.close, basis: "open" }),
      slip: (price, side) => (side === "buy" ? price + 0.01 : price - 0.01),
    };
    const script: Script = {
      0: (b, i) => b.submit(order("buy"), i),
      1: (b, i) => b.submit(order("sell", { type: "limit", limitPrice: 200 }), i),
    };
    const custom = run(X, {}, script, undefined, atClose);
    expect(custom.fills.map((f) => [f.rawPrice, f.price])).toEqual([
      [103, 103.01],
      [105, 104.99],
    ]);
    expect(only(custom.trades).pnl).toBeCloseTo(10 * (104.99 - 103.01), 9);
    // The same script under the default rules: next open, and the limit of 200 is never reached.
    const standard = run(X, {}, script);
    expect(only(standard.fills).price).toBe(102);
  });

  it("the default model is the documented rules: a wrapper around it changes nothing", () => {
    const calls: string[] = [];
    const wrapped: FillModel = {
      match: (...args) => {
        calls.push(args[0]);
        return DEFAULT_FILL_MODEL.match(...args);
      },
      slip: DEFAULT_FILL_MODEL.slip,
    };
    const script: Script = {
      0: (b, i) => b.submit(order("buy", { type: "stop", stopPrice: 103, stopLoss: 98 }), i),
    };
    const config = { slippageRate: 0.001 };
    const a = run(X, config, script, undefined, wrapped);
    const b = run(X, config, script);
    expect(a.fills).toEqual(b.fills);
    expect(a.equity).toEqual(b.equity);
    expect(calls).toContain("stop");
    expect(a.fills.length).toBe(2);
  });
});
