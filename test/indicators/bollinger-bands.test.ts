import { describe, expect, it } from "vitest";
import { bollingerBands } from "../../src/indicators/bollinger-bands.js";

describe("bollingerBands", () => {
  const { upper, middle, lower } = bollingerBands(Float64Array.from([1, 2, 3, 4, 10]), 3, 2);

  it("uses the SMA as middle and the population standard deviation for the width", () => {
    // window [1,2,3]: mean 2, population variance (1+0+1)/3 = 2/3
    expect(middle[2]).toBe(2);
    expect(upper[2]).toBeCloseTo(2 + 2 * Math.sqrt(2 / 3), 12);
    expect(lower[2]).toBeCloseTo(2 - 2 * Math.sqrt(2 / 3), 12);
    // window [3,4,10]: mean 17/3, deviations -8/3 -5/3 13/3, squares sum 258/9, variance 86/9
    expect(upper[4]).toBeCloseTo(17 / 3 + (2 * Math.sqrt(86)) / 3, 12);
    // the sample deviation (÷ 2) would be sqrt(258/18) ≈ 3.786, the population one ≈ 3.091
    expect(upper[4]! - middle[4]!).not.toBeCloseTo(2 * Math.sqrt(258 / 18), 3);
  });

  it("is NaN during warm-up in every band", () => {
    for (const band of [upper, middle, lower])
      expect(Array.from(band.slice(0, 2))).toEqual([NaN, NaN]);
  });
});
