import { describe, expect, it } from "vitest";
import {
  EXACT_SIGN_FLIP_MAX_PAIRS,
  SIGN_FLIP_PERMUTATIONS,
  signFlipTest,
} from "../../../src/metrics/experiment/sign-flip.js";

describe("signFlipTest", () => {
  it("Example 4: 4 of the 16 sign patterns of (2, 1, 1, −0.5) reach |Σ| ≥ 3.5", () => {
    const t = signFlipTest([2, 1, 1, -0.5]);
    expect(t.method).toBe("exact");
    expect(t.permutations).toBe(16);
    expect(t.seed).toBeNull();
    // None (3.5), −0.5 flipped (4.5), 2, 1, 1′ flipped (−4.5), all flipped (−3.5, a tie).
    expect(t.p.value).toBeCloseTo(4 / 16, 9);
    expect(t.smallestP).toBeCloseTo(2 / 16, 9);
  });

  it("counts ties whose sums differ only in the last bits", () => {
    // d = (0.1, 0.2, −0.1): Σ = 0.2 in reals, 0.20000000000000004 in doubles. In reals the 8
    // patterns sum to ±0.2 (none, all, 0.2 flipped, 0.1 and −0.1 flipped), ±0.4 (−0.1 flipped,
    // 0.1 and 0.2 flipped) and 0 (0.1 flipped, 0.2 and −0.1 flipped): 6 of 8 reach 0.2. Two of
    // the ±0.2 sums come out a few bits short in doubles, and must still count.
    expect(signFlipTest([0.1, 0.2, -0.1]).p.value).toBeCloseTo(6 / 8, 9);
    // (0.1, 0.2, −0.3) sums to 0 in reals: every pattern ties or beats it, p = 1.
    expect(signFlipTest([0.1, 0.2, -0.3]).p.value).toBe(1);
  });

  it("is exact up to 16 pairs and Monte Carlo with the recorded seed beyond", () => {
    const d16 = Array.from({ length: EXACT_SIGN_FLIP_MAX_PAIRS }, (_, i) => i + 1);
    const exact = signFlipTest(d16);
    expect(exact).toMatchObject({ method: "exact", permutations: 2 ** 16, seed: null });
    // All 16 positive and distinct: only the pattern and its mirror reach Σ = 136.
    expect(exact.p.value).toBeCloseTo(2 / 2 ** 16, 12);
    const mc = signFlipTest([...d16, 17], { seed: 9 });
    expect(mc).toMatchObject({ method: "monte-carlo", permutations: SIGN_FLIP_PERMUTATIONS });
    expect(mc.seed).toBe(9);
    expect(mc.smallestP).toBeCloseTo(1 / (1 + SIGN_FLIP_PERMUTATIONS), 12);
    // No random pattern reaches the maximum: p is (1 + 0)/(1 + B), never 0.
    expect(mc.p.value).toBeCloseTo(1 / (1 + SIGN_FLIP_PERMUTATIONS), 12);
  });

  it("estimates, by Monte Carlo, the exact p of 17 pairs within sampling error", () => {
    const d = [
      0.8, -1.1, 0.3, 1.7, -0.2, 0.9, 0.4, -0.6, 1.2, 0.1, -0.9, 0.7, 0.5, -0.3, 1.4, 0.2, -1.3,
    ];
    const observed = Math.abs(d.reduce((a, b) => a + b));
    let hits = 0;
    for (let mask = 0; mask < 2 ** d.length; mask++) {
      let sum = 0;
      for (let i = 0; i < d.length; i++) sum += mask & (1 << i) ? -d[i]! : d[i]!;
      if (Math.abs(sum) >= observed - 1e-9) hits++;
    }
    const exact = hits / 2 ** d.length;
    const se = Math.sqrt((exact * (1 - exact)) / SIGN_FLIP_PERMUTATIONS);
    for (const seed of [1, 2, 3]) {
      const t = signFlipTest(d, { seed });
      expect(t.method).toBe("monte-carlo");
      expect(Math.abs(t.p.value! - exact)).toBeLessThan(4 * se + 1 / SIGN_FLIP_PERMUTATIONS);
    }
    expect(signFlipTest(d, { seed: 4 }).p).toEqual(signFlipTest(d, { seed: 4 }).p);
  });

  it("says what a few pairs can and cannot show", () => {
    expect(signFlipTest([]).p).toEqual({ value: null, reason: "no pairs" });
    expect(signFlipTest([]).method).toBe("none");
    // One pair: both signs give the same |Σ|.
    expect(signFlipTest([2.5]).p.value).toBe(1);
    // Zeros cannot flip: 5 pairs of which 2 are 0 leave 2³ distinct patterns.
    expect(signFlipTest([1, 2, 0, 3, 0]).smallestP).toBeCloseTo(2 / 2 ** 3, 12);
    expect(signFlipTest([1, 2, 0, 3, 0]).p.value).toBeCloseTo(2 / 2 ** 3, 12);
    expect(signFlipTest([0, 0, 0]).p.value).toBe(1);
    expect(signFlipTest([1, Number.POSITIVE_INFINITY]).p.reason).toMatch(/not a finite/);
  });
});
