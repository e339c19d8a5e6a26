import { describe, expect, it } from "vitest";
import { summarizeCell, windowMeans } from "../../../src/metrics/experiment/cell.js";
import { EXPERIMENT_METRIC_NAMES } from "../../../src/metrics/experiment/metrics.js";
import { summarize } from "../../../src/metrics/experiment/summary.js";

describe("summarize", () => {
  it("Example 1: n, mean, sample SD, min and max of (2, −1, 4, 3)", () => {
    const s = summarize([2, -1, 4, 3]);
    expect(s.n).toBe(4);
    expect(s.mean.value).toBeCloseTo(2, 9);
    expect(s.sd.value).toBeCloseTo(Math.sqrt(14 / 3), 9);
    expect(s.sd.value).toBeCloseTo(2.160246899469287, 9);
    expect(s.min.value).toBe(-1);
    expect(s.max.value).toBe(4);
    // 4⁴ = 256 resamples: exhaustive, and inside the range.
    expect(s.ci.method).toBe("exhaustive");
    expect(s.ci.interval.low).toBeGreaterThanOrEqual(-1);
    expect(s.ci.interval.high).toBeLessThanOrEqual(4);
  });

  it("has no SD for one value and nothing for none, each with its reason", () => {
    const one = summarize([3]);
    expect(one.mean.value).toBe(3);
    expect(one.sd).toEqual({ value: null, reason: expect.stringMatching(/at least 2/) });
    expect(one.min.value).toBe(3);
    const none = summarize([]);
    expect(none.n).toBe(0);
    for (const f of [none.mean, none.sd, none.min, none.max])
      expect(f).toEqual({ value: null, reason: "no values" });
  });

  it("gives a zero SD, not a missing one, when every value is the same", () => {
    expect(summarize([1.5, 1.5, 1.5]).sd).toEqual({ value: 0, reason: null });
  });
});

describe("summarizeCell", () => {
  it("summarises every metric and counts the runs that have no figure", () => {
    const runs = [
      { window: "a", repeat: 0, metrics: { returnPct: 2, tokens: 1000, costUsd: null } },
      { window: "a", repeat: 1, metrics: { returnPct: -1, tokens: 3000, costUsd: 0.5 } },
      { window: "b", repeat: 0, metrics: { returnPct: 4, tokens: 2000 } },
      { window: "b", repeat: 1, metrics: { returnPct: 3, tokens: 2000, sharpe: Number.NaN } },
    ];
    const cell = summarizeCell(runs);
    expect(Object.keys(cell).sort()).toEqual([...EXPERIMENT_METRIC_NAMES].sort());
    expect(cell.returnPct).toMatchObject({ n: 4, missing: 0, mean: { value: 2 } });
    expect(cell.returnPct.sd.value).toBeCloseTo(Math.sqrt(14 / 3), 9);
    expect(cell.tokens).toMatchObject({ n: 4, mean: { value: 2000 }, min: { value: 1000 } });
    // An unknown price is missing, never $0.
    expect(cell.costUsd).toMatchObject({ n: 1, missing: 3, mean: { value: 0.5 } });
    expect(cell.sharpe).toMatchObject({ n: 0, missing: 4, mean: { value: null } });
  });
});

describe("windowMeans", () => {
  it("Example 8: averages each metric over a window's repeats that have a figure, as repeat 1", () => {
    const runs = [
      { window: "a", repeat: 1, metrics: { returnPct: 2, turnover: 0.5, costUsd: null } },
      { window: "b", repeat: 1, metrics: { returnPct: 4, turnover: null } },
      { window: "a", repeat: 2, metrics: { returnPct: -1, turnover: 1.5, costUsd: null } },
      { window: "b", repeat: 2, metrics: { returnPct: 3, turnover: null } },
      { window: "a", repeat: 3, metrics: { returnPct: 5, turnover: 2.5 } },
    ];
    const means = windowMeans(runs);
    expect(means.map((m) => [m.window, m.repeat])).toEqual([
      ["a", 1],
      ["b", 1],
    ]);
    // a: (2 − 1 + 5) / 3 = 2 and (0.5 + 1.5 + 2.5) / 3 = 1.5; b: (4 + 3) / 2 = 3.5.
    expect(means[0]?.metrics).toMatchObject({ returnPct: 2, turnover: 1.5, costUsd: null });
    expect(means[1]?.metrics).toMatchObject({ returnPct: 3.5, turnover: null, sharpe: null });
  });
});
