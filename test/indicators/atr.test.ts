import { describe, expect, it } from "vitest";
import { atr } from "../../src/indicators/atr.js";

describe("atr (Wilder)", () => {
  const high = Float64Array.from([10, 11, 12, 11.5, 14, 12]);
  const low = Float64Array.from([8, 9, 10, 10.5, 12, 9]);
  const close = Float64Array.from([9, 10.5, 11, 11, 13, 10]);
  const out = atr(high, low, close, 3);

  it("uses the true range from bar 1 and seeds with its simple mean at index `period`", () => {
    // TR1 = max(11-9, |11-9|, |9-9|) = 2; TR2 = max(2, |12-10.5|, |10-10.5|) = 2
    // TR3 = max(1, |11.5-11|, |10.5-11|) = 1 → ATR3 = (2+2+1)/3 = 5/3
    expect(Array.from(out.slice(0, 3))).toEqual([NaN, NaN, NaN]);
    expect(out[3]).toBeCloseTo(5 / 3, 12);
  });

  it("counts gaps through the previous close and smooths with (prev * 2 + TR) / 3", () => {
    // TR4 = max(14-12, |14-11|, |12-11|) = 3 (gap up) → ATR4 = (5/3*2 + 3)/3 = 19/9
    // TR5 = max(12-9, |12-13|, |9-13|) = 4 → ATR5 = (19/9*2 + 4)/3 = 74/27
    expect(out[4]).toBeCloseTo(19 / 9, 12);
    expect(out[5]).toBeCloseTo(74 / 27, 12);
  });
});
