import { describe, expect, it } from "vitest";
import { computeIndicator } from "../../src/indicators/compute-indicator.js";
import { IndicatorError } from "../../src/indicators/indicator-error.js";
import { valueAt, valuesUpTo } from "../../src/indicators/read-values.js";
import { makeSeries, randomWalk } from "./make-series.js";

describe("valuesUpTo", () => {
  // SMA(3) of [1,2,3,4,5] = [NaN, NaN, 2, 3, 4]
  const result = computeIndicator(makeSeries({ close: [1, 2, 3, 4, 5] }), "sma", { period: 3 });

  it("returns the last n values ending at index, oldest first, NaN as null", () => {
    expect(valuesUpTo(result, 3, 3)).toEqual({ value: [null, 2, 3] });
    expect(valuesUpTo(result, 4, 2)).toEqual({ value: [3, 4] });
  });

  it("returns fewer values near the start instead of reading before bar 0", () => {
    expect(valuesUpTo(result, 1, 5)).toEqual({ value: [null, null] });
  });

  it("returns every output of a multi-output indicator", () => {
    const bands = computeIndicator(randomWalk(50), "bbands");
    const out = valuesUpTo(bands, 19, 2);
    expect(Object.keys(out)).toEqual(["upper", "middle", "lower"]);
    expect(out.middle).toEqual([null, bands.outputs.middle![19]]);
  });

  it("refuses an index outside the series and a non-positive count", () => {
    expect(() => valuesUpTo(result, 5, 1)).toThrow(IndicatorError);
    expect(() => valuesUpTo(result, -1, 1)).toThrow(/outside the series \(0\.\.4\)/);
    expect(() => valuesUpTo(result, 4, 0)).toThrow(/positive integer/);
  });
});

describe("valueAt", () => {
  const result = computeIndicator(makeSeries({ close: [1, 2, 3, 4, 5] }), "sma", { period: 3 });

  it("reads one output at an index, null while undefined", () => {
    expect(valueAt(result, 4)).toBe(4);
    expect(valueAt(result, 1)).toBeNull();
  });

  it("names the outputs when asked for one that does not exist", () => {
    expect(() => valueAt(result, 4, "signal")).toThrow(/has no output "signal"; it has: value/);
  });
});
