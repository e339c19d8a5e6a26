import { describe, expect, it } from "vitest";
import { macd } from "../../src/indicators/macd.js";

describe("macd", () => {
  // fast 2 (alpha 2/3), slow 3 (alpha 1/2), signal 2 on [1, 2, 4, 8, 16, 32]
  // EMA2: 1.5, 19/6, 115/18, 691/54, 4147/162 (from index 1)
  // EMA3: 7/3, 31/6, 127/12, 511/24 (from index 2)
  // macd (from 2): 5/6, 11/9, 239/108, 2791/648
  // signal seed at 3 = (5/6 + 11/9)/2 = 37/36; 4: 37/36 + 2/3*(239/108 - 37/36) = 589/324
  //   5: 589/324 + 2/3*(2791/648 - 589/324) = 845/243
  // histogram 5: 2791/648 - 845/243 = 1613/1944
  const out = macd(Float64Array.from([1, 2, 4, 8, 16, 32]), 2, 3, 2);

  it("takes the difference of the two EMAs from the slow EMA's first value", () => {
    expect(Array.from(out.macd.slice(0, 2))).toEqual([NaN, NaN]);
    expect(out.macd[2]).toBeCloseTo(5 / 6, 12);
    expect(out.macd[3]).toBeCloseTo(11 / 9, 12);
    expect(out.macd[5]).toBeCloseTo(2791 / 648, 12);
  });

  it("seeds the signal with the SMA of the first macd values, and subtracts it for the histogram", () => {
    expect(Array.from(out.signal.slice(0, 3))).toEqual([NaN, NaN, NaN]);
    expect(out.signal[3]).toBeCloseTo(37 / 36, 12);
    expect(out.signal[4]).toBeCloseTo(589 / 324, 12);
    expect(out.signal[5]).toBeCloseTo(845 / 243, 12);
    expect(out.histogram[2]).toBeNaN();
    expect(out.histogram[5]).toBeCloseTo(1613 / 1944, 12);
  });
});
