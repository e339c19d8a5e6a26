import { describe, expect, it } from "vitest";
import { rateOfChange } from "../../src/indicators/rate-of-change.js";

describe("rateOfChange", () => {
  it("is the percent change over `period` bars", () => {
    // i2: 100*(15-10)/10 = 50; i3: 100*(12-20)/20 = -40
    expect(Array.from(rateOfChange(Float64Array.from([10, 20, 15, 12]), 2))).toEqual([
      NaN,
      NaN,
      50,
      -40,
    ]);
  });
});
