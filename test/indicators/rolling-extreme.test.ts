import { describe, expect, it } from "vitest";
import { rollingExtreme } from "../../src/indicators/rolling-extreme.js";
import { randomWalk } from "./make-series.js";

describe("rollingExtreme", () => {
  const values = Float64Array.from([5, 3, 4, 1, 2, 6, 6, 0]);

  it("gives the highest of the last `period` values, the current one included", () => {
    // windows: [5,3,4] [3,4,1] [4,1,2] [1,2,6] [2,6,6] [6,6,0]
    expect(Array.from(rollingExtreme(values, 3, "max"))).toEqual([NaN, NaN, 5, 4, 4, 6, 6, 6]);
  });

  it("gives the lowest likewise", () => {
    expect(Array.from(rollingExtreme(values, 3, "min"))).toEqual([NaN, NaN, 3, 1, 1, 1, 2, 0]);
  });

  it("matches a naive scan on a long series", () => {
    const high = randomWalk(2_000).high;
    const out = rollingExtreme(high, 17, "max");
    for (let i = 16; i < high.length; i++) {
      expect(out[i]).toBe(Math.max(...high.slice(i - 16, i + 1)));
    }
  });
});
