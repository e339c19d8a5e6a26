import { describe, expect, it } from "vitest";
import { normalCdf, normalQuantile } from "../../../src/metrics/overfitting/normal.js";

// Reference values: mpmath at 40 significant digits (ncdf, and findroot on ncdf for the quantile).
const CDF: [number, number][] = [
  [-30, 4.906713927148187e-198],
  [-20, 2.7536241186062337e-89],
  [-10, 7.619853024160525e-24],
  [-6, 9.86587645037698e-10],
  [-5, 2.866515718791939e-7],
  [-3.0001, 0.0013494549132607172],
  [-3, 0.0013498980316300946],
  [-2.9999, 0.0013503412829549248],
  [-2, 0.02275013194817921],
  [-1, 0.15865525393145705],
  [-0.5, 0.3085375387259869],
  [0, 0.5],
  [0.5, 0.6914624612740131],
  [1, 0.8413447460685429],
  [1.6448536269514722, 0.95],
  [2, 0.9772498680518208],
  [2.9999, 0.998649658717045],
  [3, 0.9986501019683699],
  [3.0001, 0.9986505450867392],
  [5, 0.9999997133484281],
  [8, 0.9999999999999993],
];

const QUANTILE: [number, number][] = [
  [1e-300, -37.0470962993612],
  [1e-100, -21.273453560965326],
  [1e-20, -9.262340089798407],
  [1e-10, -6.361340902404057],
  [1e-5, -4.264890793922825],
  [0.001, -3.0902323061678136],
  [0.01, -2.326347874040841],
  [0.025, -1.9599639845400543],
  [0.1, -1.2815515655446004],
  [0.3, -0.5244005127080408],
  [0.7, 0.5244005127080407],
  [0.9, 1.2815515655446006],
  [0.95, 1.6448536269514722],
  [0.975, 1.9599639845400538],
  [0.99, 2.3263478740408408],
  [1 - 1e-10, 6.361340889697422],
];

describe("normalCdf", () => {
  it.each(CDF)("Φ(%d) is within 1e-16 absolute and 1e-13 relative of the reference", (x, want) => {
    const got = normalCdf(x);
    expect(Math.abs(got - want)).toBeLessThan(1e-16 + 1e-13 * want);
    expect(Math.abs(got - want) / want).toBeLessThan(1e-13);
  });

  it("is symmetric, monotone across the switch between its two methods, and saturates", () => {
    for (let x = 0; x < 8; x += 0.0625) expect(normalCdf(x) + normalCdf(-x)).toBeCloseTo(1, 15);
    let previous = 0;
    for (let x = -3.01; x <= 3.01; x += 0.0001) {
      const p = normalCdf(x);
      expect(p).toBeGreaterThanOrEqual(previous);
      previous = p;
    }
    expect(normalCdf(Number.NEGATIVE_INFINITY)).toBe(0);
    expect(normalCdf(Number.POSITIVE_INFINITY)).toBe(1);
    expect(normalCdf(Number.NaN)).toBeNaN();
  });
});

describe("normalQuantile", () => {
  it.each(QUANTILE)("Φ⁻¹(%d) is within 5e-15 relative of the reference", (p, want) => {
    expect(Math.abs(normalQuantile(p) - want) / Math.abs(want)).toBeLessThan(5e-15);
  });

  it("inverts normalCdf, and is exact at the ends and the middle", () => {
    // Above 0 the round trip goes through 1 − small, which keeps fewer of the small digits.
    for (let x = -30; x <= 0; x += 0.25) expect(normalQuantile(normalCdf(x))).toBeCloseTo(x, 13);
    for (let x = 0; x <= 5; x += 0.25) expect(normalQuantile(normalCdf(x))).toBeCloseTo(x, 9);
    expect(normalQuantile(0.5)).toBe(0);
    expect(normalQuantile(0)).toBe(Number.NEGATIVE_INFINITY);
    expect(normalQuantile(1)).toBe(Number.POSITIVE_INFINITY);
    for (const bad of [-0.1, 1.1, Number.NaN]) expect(normalQuantile(bad)).toBeNaN();
  });
});
