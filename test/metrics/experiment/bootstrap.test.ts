import { describe, expect, it } from "vitest";
import {
  BOOTSTRAP_RESAMPLES,
  bootstrapMeanInterval,
  exhaustiveResampleMeans,
  quantileSorted,
} from "../../../src/metrics/experiment/bootstrap.js";
import { DEFAULT_SEED } from "../../../src/metrics/experiment/prng.js";

const bounds = (values: number[], options?: Parameters<typeof bootstrapMeanInterval>[1]) => {
  const { interval } = bootstrapMeanInterval(values, options);
  if (interval.reason !== null) throw new Error(interval.reason);
  return interval;
};

describe("quantileSorted (type 7)", () => {
  it("Example 2: interpolates between order statistics at (B − 1)·q", () => {
    const sorted = [0, 0.5, 0.5, 1];
    expect(quantileSorted(sorted, 0.025)).toBeCloseTo(0.075 * 0.5, 9);
    expect(quantileSorted(sorted, 0.975)).toBeCloseTo(0.5 + 0.925 * 0.5, 9);
    expect(quantileSorted(sorted, 0)).toBe(0);
    expect(quantileSorted(sorted, 1)).toBe(1);
    expect(quantileSorted([3], 0.3)).toBe(3);
  });
});

describe("bootstrapMeanInterval", () => {
  it("Example 3: lists all 2² resamples of (0, 1)", () => {
    expect([...exhaustiveResampleMeans([0, 1])]).toEqual([0, 0.5, 0.5, 1]);
    const ci = bootstrapMeanInterval([0, 1]);
    expect(ci.method).toBe("exhaustive");
    expect(ci.resamples).toBe(4);
    expect(ci.interval.low).toBeCloseTo(0.0375, 9);
    expect(ci.interval.high).toBeCloseTo(0.9625, 9);
  });

  it("Example 3: lists all 3³ resamples of (0, 0, 3): the interval is (0, 2.35)", () => {
    const means = [...exhaustiveResampleMeans([0, 0, 3])].sort((a, b) => a - b);
    // k draws of the 3 give the mean k: 8, 12, 6 and 1 resamples.
    expect(means).toEqual([
      ...new Array(8).fill(0),
      ...new Array(12).fill(1),
      ...new Array(6).fill(2),
      3,
    ]);
    const ci = bootstrapMeanInterval([0, 0, 3]);
    expect(ci.method).toBe("exhaustive");
    expect(ci.resamples).toBe(27);
    expect(ci.interval.low).toBeCloseTo(0, 9);
    expect(ci.interval.high).toBeCloseTo(2 + 0.35 * (3 - 2), 9);
  });

  it("draws 10,000 resamples with the recorded seed once nⁿ passes that", () => {
    const values = [1.5, -0.4, 2.9, 0.8, 1.1, 1.3];
    const ci = bootstrapMeanInterval(values);
    expect(ci).toMatchObject({
      method: "monte-carlo",
      resamples: BOOTSTRAP_RESAMPLES,
      seed: DEFAULT_SEED,
      confidence: 0.95,
    });
    // 5⁵ = 3125 fits in 10,000 resamples; with 3000 it does not.
    expect(bootstrapMeanInterval(values.slice(0, 5)).method).toBe("exhaustive");
    expect(bootstrapMeanInterval(values.slice(0, 5), { resamples: 3000 }).method).toBe(
      "monte-carlo",
    );
  });

  it("gives the same interval for the same seed, another for another seed", () => {
    const values = [3, -1, 4, 1, -5, 9, 2, 6];
    expect(bounds(values, { seed: 5 })).toEqual(bounds(values, { seed: 5 }));
    expect(bounds(values, { seed: 5 })).not.toEqual(bounds(values, { seed: 6 }));
    expect(bootstrapMeanInterval(values, { seed: 5 }).seed).toBe(5);
  });

  it("lies within the values' range, around their mean, and narrows with the confidence", () => {
    const values = [3, -1, 4, 1, -5, 9, 2, 6];
    const mean = values.reduce((a, b) => a + b) / values.length;
    const ci95 = bounds(values);
    const ci50 = bounds(values, { confidence: 0.5 });
    expect(ci95.low).toBeGreaterThanOrEqual(-5);
    expect(ci95.high).toBeLessThanOrEqual(9);
    expect(ci95.low).toBeLessThan(mean);
    expect(ci95.high).toBeGreaterThan(mean);
    expect(ci50.low).toBeGreaterThan(ci95.low);
    expect(ci50.high).toBeLessThan(ci95.high);
  });

  it("is within sampling error of the exhaustive interval (n = 6: 46,656 resamples)", () => {
    const values = [-1, 0, 0.5, 2, 3, 7];
    const all = exhaustiveResampleMeans(values).sort();
    // Where a bound falls in the exact distribution: the shares of resamples below and at most it.
    const share = (x: number) => ({
      below: all.filter((m) => m < x - 1e-12).length / all.length,
      atMost: all.filter((m) => m <= x + 1e-12).length / all.length,
    });
    // A quantile read from 10,000 draws lands within √(q(1 − q)/10,000) of q in probability:
    // 0.0016 for q = 0.025. Allow 4 times that.
    const tol = 4 * Math.sqrt((0.025 * 0.975) / BOOTSTRAP_RESAMPLES);
    for (const seed of [1, 2, 3, 4, 5]) {
      const mc = bounds(values, { seed });
      const low = share(mc.low);
      const high = share(mc.high);
      expect(low.below).toBeLessThanOrEqual(0.025 + tol);
      expect(low.atMost).toBeGreaterThanOrEqual(0.025 - tol);
      expect(high.below).toBeLessThanOrEqual(0.975 + tol);
      expect(high.atMost).toBeGreaterThanOrEqual(0.975 - tol);
    }
  });

  it("gives a constant sample's constant, and no interval for 0 or 1 value", () => {
    expect(bounds([2.5, 2.5, 2.5, 2.5, 2.5, 2.5])).toEqual({ low: 2.5, high: 2.5, reason: null });
    const none = bootstrapMeanInterval([]);
    expect(none).toMatchObject({ method: "none", resamples: 0 });
    expect(none.interval).toEqual({ low: null, high: null, reason: "no values" });
    expect(bootstrapMeanInterval([4]).interval.reason).toMatch(/one value/);
    expect(bootstrapMeanInterval([1, Number.NaN]).interval.reason).toMatch(/not a finite/);
  });

  it("refuses options that mean nothing", () => {
    expect(() => bootstrapMeanInterval([1, 2], { resamples: 0 })).toThrow(/resamples/);
    expect(() => bootstrapMeanInterval([1, 2], { confidence: 95 })).toThrow(/confidence/);
    expect(() => bootstrapMeanInterval([1, 2], { seed: -3 })).toThrow(/seed/);
  });
});
