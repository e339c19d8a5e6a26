import { describe, expect, it } from "vitest";
import type { ExperimentRun } from "../../../src/metrics/experiment/metrics.js";
import { pairedComparison } from "../../../src/metrics/experiment/paired.js";

/** Runs on (w1 r0, w1 r1, w2 r0, w2 r1) with these return %. */
const runs = (returns: (number | null)[]): ExperimentRun[] =>
  returns.map((r, i) => ({
    window: i < 2 ? "w1" : "w2",
    repeat: i % 2,
    metrics: { returnPct: r },
  }));

describe("pairedComparison", () => {
  it("Example 6: layered (3, 0.5, 3, 0) against none (1, −0.5, 2, 0.5)", () => {
    const c = pairedComparison(runs([3, 0.5, 3, 0]), runs([1, -0.5, 2, 0.5]), "returnPct");
    expect(c).toMatchObject({ pairs: 4, windows: 2, repeats: 2, higher: 3, lower: 1, equal: 0 });
    expect(c.unpaired).toEqual([]);
    // d = (2, 1, 1, −0.5): Example 4's.
    expect(c.difference.mean.value).toBeCloseTo(3.5 / 4, 9);
    expect(c.difference.min.value).toBeCloseTo(-0.5, 9);
    expect(c.difference.max.value).toBeCloseTo(2, 9);
    // Exhaustive bootstrap over 4⁴ = 256 resamples: ranks 6 and 7 are sums of −0.5, ranks 248
    // and 249 sums of 7.
    expect(c.difference.ci.method).toBe("exhaustive");
    expect(c.difference.ci.resamples).toBe(256);
    expect(c.difference.ci.interval.low).toBeCloseTo(-0.5 / 4, 9);
    expect(c.difference.ci.interval.high).toBeCloseTo(7 / 4, 9);
    expect(c.test.p.value).toBeCloseTo(4 / 16, 9);
  });

  it("pairs on (window, repeat) whatever the order, and lists the runs with no partner", () => {
    const cell: ExperimentRun[] = [
      { window: "w2", repeat: 0, metrics: { returnPct: 5 } },
      { window: "w1", repeat: 0, metrics: { returnPct: 1 } },
      { window: "w3", repeat: 0, metrics: { returnPct: 7 } },
      { window: "w1", repeat: 1, metrics: { returnPct: null } },
    ];
    const baseline: ExperimentRun[] = [
      { window: "w1", repeat: 1, metrics: { returnPct: 2 } },
      { window: "w1", repeat: 0, metrics: { returnPct: 0 } },
      { window: "w2", repeat: 0, metrics: { returnPct: 6 } },
    ];
    const c = pairedComparison(cell, baseline, "returnPct");
    // Pairs: w1 r0 (1 − 0 = 1) and w2 r0 (5 − 6 = −1).
    expect(c).toMatchObject({ pairs: 2, windows: 2, repeats: 1, higher: 1, lower: 1 });
    expect(c.difference.mean.value).toBe(0);
    expect(c.unpaired).toEqual([
      { window: "w1", repeat: 1, has: "baseline" },
      { window: "w3", repeat: 0, has: "cell" },
    ]);
  });

  it("refuses two runs on one window and repeat", () => {
    const twice = [...runs([1, 2, 3, 4]), { window: "w1", repeat: 0, metrics: { returnPct: 9 } }];
    expect(() => pairedComparison(twice, runs([1, 2, 3, 4]), "returnPct")).toThrow(
      /the cell has two runs for window w1 repeat 0/,
    );
  });

  it("uses one seed for the bootstrap and the permutation test, and records it", () => {
    const many = (shift: number): ExperimentRun[] =>
      Array.from({ length: 20 }, (_, i) => ({
        window: `w${String(i).padStart(2, "0")}`,
        repeat: 0,
        metrics: { sharpe: Math.sin(i) + shift },
      }));
    const c = pairedComparison(many(0.3), many(0), "sharpe", { seed: 77, permutations: 2000 });
    expect(c.difference.ci).toMatchObject({ method: "monte-carlo", seed: 77 });
    expect(c.test).toMatchObject({ method: "monte-carlo", seed: 77, permutations: 2000 });
  });
});
