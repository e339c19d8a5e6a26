import { describe, expect, it } from "vitest";
import { IndicatorCache } from "../../src/indicators/indicator-cache.js";
import { IndicatorError } from "../../src/indicators/indicator-error.js";
import { prefix, randomWalk } from "./make-series.js";

describe("IndicatorCache", () => {
  const series = randomWalk(100);

  it("computes once for repeated gets, however the params are spelled", () => {
    const cache = new IndicatorCache();
    const first = cache.get(series, "rsi");
    expect(cache.get(series, "rsi", { period: 14 })).toBe(first);
    expect(cache.get(series, "RSI", {})).toBe(first);
    expect(cache.computeCount).toBe(1);
  });

  it("computes separately for different params, names and symbols", () => {
    const cache = new IndicatorCache();
    cache.get(series, "sma", { period: 5 });
    cache.get(series, "sma", { period: 6 });
    cache.get(series, "ema", { period: 5 });
    cache.get({ ...series, symbol: "OTHER" }, "sma", { period: 5 });
    cache.get(series, "macd", { fast: 3, slow: 7, signal: 2 });
    cache.get(series, "macd", { signal: 2, slow: 7, fast: 3 });
    // 5 distinct keys; the reordered macd params are the same key
    expect(cache.computeCount).toBe(5);
  });

  it("refuses a different series under a cached symbol instead of serving stale values", () => {
    const cache = new IndicatorCache();
    cache.get(series, "sma", { period: 5 });
    expect(() => cache.get(prefix(series, 50), "sma", { period: 5 })).toThrow(IndicatorError);
    expect(() => cache.get(prefix(series, 50), "sma", { period: 5 })).toThrow(/full series/);
  });

  it("does not count a request that fails validation", () => {
    const cache = new IndicatorCache();
    expect(() => cache.get(series, "sma", { period: -1 })).toThrow(IndicatorError);
    expect(cache.computeCount).toBe(0);
  });
});
