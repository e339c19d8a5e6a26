import { describe, expect, it } from "vitest";
import { benjaminiHochberg } from "../../../src/metrics/experiment/benjamini-hochberg.js";

describe("benjaminiHochberg", () => {
  it("Example 5: the 15 p-values of Benjamini & Hochberg (1995)", () => {
    const p = [
      0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459, 0.324, 0.4262, 0.5719,
      0.6528, 0.759, 1,
    ];
    // m·p₍ᵢ₎/i, then the running minimum from the largest down: p₍₆₎ takes p₍₇₎'s value.
    const expected = [
      0.0001 * 15,
      (0.0004 * 15) / 2,
      (0.0019 * 15) / 3,
      (0.0095 * 15) / 4,
      (0.0201 * 15) / 5,
      (0.0298 * 15) / 7,
      (0.0298 * 15) / 7,
      (0.0344 * 15) / 8,
      (0.0459 * 15) / 9,
      (0.324 * 15) / 10,
      (0.4262 * 15) / 11,
      (0.5719 * 15) / 12,
      (0.6528 * 15) / 13,
      (0.759 * 15) / 14,
      1,
    ];
    const adjusted = benjaminiHochberg(p);
    for (const [i, q] of adjusted.entries()) expect(q).toBeCloseTo(expected[i]!, 9);
    expect(adjusted[3]).toBeCloseTo(0.035625, 9);
    expect(adjusted[5]).toBeCloseTo(0.06385714285714286, 9);
    // At q = 0.05 the first four are discoveries, as in the paper.
    expect(adjusted.filter((q) => q! <= 0.05)).toHaveLength(4);
  });

  it("returns them in the input's order, keeps nulls out of m, and gives ties one value", () => {
    // m = 3 (the null is not a test): sorted 0.01, 0.04, 0.04; 3·0.04/3 = 0.04, then
    // min(3·0.04/2, 0.04) = 0.04 for the tie, and 3·0.01/1 = 0.03.
    const adjusted = benjaminiHochberg([0.04, null, 0.01, 0.04]);
    expect(adjusted[0]).toBeCloseTo(0.04, 12);
    expect(adjusted[1]).toBeNull();
    expect(adjusted[2]).toBeCloseTo(0.03, 12);
    expect(adjusted[3]).toBeCloseTo(0.04, 12);
    expect(benjaminiHochberg([0.3])).toEqual([0.3]);
    expect(benjaminiHochberg([])).toEqual([]);
  });

  it("never lowers a p-value and never passes 1", () => {
    const p = [0.5, 0.9, 0.02, 0.7, 0.01];
    const adjusted = benjaminiHochberg(p);
    adjusted.forEach((q, i) => {
      expect(q).toBeGreaterThanOrEqual(p[i]!);
      expect(q).toBeLessThanOrEqual(1);
    });
  });

  it("refuses a p-value outside [0, 1]", () => {
    expect(() => benjaminiHochberg([0.2, 1.5])).toThrow(/not between 0 and 1/);
    expect(() => benjaminiHochberg([Number.NaN])).toThrow(/not between 0 and 1/);
  });
});
