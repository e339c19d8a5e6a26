import { describe, expect, it } from "vitest";
import { checkSeed, mulberry32, randomIndex } from "../../../src/metrics/experiment/prng.js";

describe("mulberry32", () => {
  it("gives the same numbers for the same seed and others for another seed", () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const c = mulberry32(43);
    const xa = Array.from({ length: 5 }, a);
    expect(Array.from({ length: 5 }, b)).toEqual(xa);
    expect(Array.from({ length: 5 }, c)).not.toEqual(xa);
  });

  it("draws in [0, 1), evenly over ten bins", () => {
    const rng = mulberry32(7);
    const bins = new Array<number>(10).fill(0);
    const n = 100_000;
    for (let i = 0; i < n; i++) {
      const u = rng();
      expect(u >= 0 && u < 1).toBe(true);
      bins[Math.floor(u * 10)]! += 1;
    }
    // χ² with 9 degrees of freedom: above 27.9 one time in a thousand for a uniform generator.
    const chi2 = bins.reduce((s, k) => s + (k - n / 10) ** 2 / (n / 10), 0);
    expect(chi2).toBeLessThan(27.9);
  });

  it("draws every index 0 … n − 1 and no other", () => {
    const rng = mulberry32(3);
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) seen.add(randomIndex(rng, 6));
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("refuses a seed that JSON or 32 bits cannot hold exactly", () => {
    expect(checkSeed(0)).toBe(0);
    expect(checkSeed(0xffff_ffff)).toBe(0xffff_ffff);
    for (const bad of [-1, 1.5, 2 ** 32, Number.NaN])
      expect(() => mulberry32(bad)).toThrow(/not an integer from 0 to 4294967295/);
  });
});
