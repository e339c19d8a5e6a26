import { describe, expect, it } from "vitest";
import { experimentDeflatedSharpe } from "../../../src/metrics/experiment/deflated.js";

// docs/experiment-statistics.md's Example 7: three cells of two runs each. The expected values
// were computed with mpmath at 40 digits from the formulas written out in the doc.

const none = [
  [0.01, -0.01],
  [0.02, -0.02],
];
const layered = [
  [0.01, -0.02],
  [0.03, 0],
];
const files = [
  [-0.01, 0.02],
  [-0.03, 0],
];

describe("experimentDeflatedSharpe", () => {
  it("Example 7: deflates the best of 3 cells by the other two", () => {
    const d = experimentDeflatedSharpe([none, layered, files]);
    expect(d.cell).toBe(1);
    expect(d.trials).toBe(3);
    expect(d.observations).toBe(4);
    // Sharpe ratios 0, √(3/52), −√(3/52): V = (0 + 2 · 3/52) / 2 = 3/52.
    expect(d.sharpeVariance.value).toBeCloseTo(3 / 52, 15);
    expect(d.bestSharpePerBar.value).toBeCloseTo(Math.sqrt(3 / 52), 15);
    expect(d.expectedMaxSharpe.value).toBeCloseTo(0.2048370142879324, 9);
    expect(d.psr.value).toBeCloseTo(0.6603769465599171, 9);
    expect(d.dsr.value).toBeCloseTo(0.52426631101443, 9);
  });

  it("takes the first of two equal best cells and counts only cells with a Sharpe as trials", () => {
    const flatUp = [[0.01, 0.01, 0.01]]; // Sharpe +∞: not a trial
    const d = experimentDeflatedSharpe([files, layered, layered, flatUp, [[0.5]]]);
    expect(d.cell).toBe(1);
    expect(d.trials).toBe(3);
  });

  it("is null with a reason when nothing was selected or nothing can be measured", () => {
    const one = experimentDeflatedSharpe([layered]);
    expect(one.cell).toBe(0);
    expect(one.psr.value).toBeCloseTo(0.6603769465599171, 9);
    expect(one.dsr.value).toBeNull();
    expect(one.dsr.reason).toMatch(/too few trials: 1, .*\(nothing was selected\)/);

    const nothing = experimentDeflatedSharpe([[[0.01]], []]);
    expect(nothing.cell).toBeNull();
    expect(nothing.dsr.reason).toMatch(/no cell has a finite per-bar Sharpe ratio/);

    // The best has 3 returns: skewness and kurtosis need 4.
    const short = experimentDeflatedSharpe([[[0.01, -0.01, 0.03]], none]);
    expect(short.cell).toBe(0);
    expect(short.dsr.value).toBeNull();
    expect(short.dsr.reason).toMatch(/too few bars: 3 returns/);
  });
});
