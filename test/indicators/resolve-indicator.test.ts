import { describe, expect, it } from "vitest";
import { IndicatorError } from "../../src/indicators/indicator-error.js";
import { resolveIndicator } from "../../src/indicators/resolve-indicator.js";

function errorOf(run: () => unknown): IndicatorError {
  try {
    run();
  } catch (error) {
    if (error instanceof IndicatorError) return error;
    throw error;
  }
  throw new Error("expected an IndicatorError");
}

describe("resolveIndicator", () => {
  it("names the valid indicators when the name is unknown", () => {
    const error = errorOf(() => resolveIndicator("supertrend"));
    expect(error.message).toContain('Unknown indicator "supertrend"');
    expect(error.message).toContain("Valid names: sma, ema, wma, rsi, macd, bbands, atr, roc");
  });

  it("accepts names in any case and fills defaults in sorted key order", () => {
    const resolved = resolveIndicator(" MACD ", { slow: 30 });
    expect(resolved.name).toBe("macd");
    expect(Object.entries(resolved.params)).toEqual([
      ["fast", 12],
      ["signal", 9],
      ["slow", 30],
    ]);
  });

  it.each([
    [{ period: 0 }, "period"],
    [{ period: 2.5 }, "period"],
    [{ period: "14" }, "period"],
    [{ length: 14 }, "length"],
  ])("rejects rsi params %j and lists the valid ones", (params, culprit) => {
    const error = errorOf(() => resolveIndicator("rsi", params));
    expect(error.message).toContain("Invalid params for indicator rsi");
    expect(error.message).toContain(culprit);
    expect(error.message).toContain("Valid params: period (default 14)");
  });

  it("rejects a MACD whose fast period is not below the slow one", () => {
    const error = errorOf(() => resolveIndicator("macd", { fast: 26, slow: 12 }));
    expect(error.message).toContain("fast must be smaller than slow");
    expect(error.message).toContain("fast (default 12), slow (default 26), signal (default 9)");
  });

  it("rejects a non-positive band width", () => {
    expect(() => resolveIndicator("bbands", { stddev: 0 })).toThrow(/stddev/);
  });

  it("tells that an indicator takes no params", () => {
    expect(() => resolveIndicator("obv", { period: 3 })).toThrow(/Valid params: none/);
  });
});
