import { describe, expect, it } from "vitest";
import { summarizeCell } from "../../../src/metrics/experiment/cell.js";
import { type CellAgainstBaseline, compareCells } from "../../../src/metrics/experiment/compare.js";
import type { ExperimentRun } from "../../../src/metrics/experiment/metrics.js";

// Cells whose truth is known: one beats its baseline by a real margin, one does not. The
// windows move both sides far more than the difference does, so only pairing can see it.

const WINDOWS = 8;
const REPEATS = 3;
const N = WINDOWS * REPEATS;

/** The market of each window: −10 % … +11 %, the same for a cell and its baseline. */
const market = (w: number) => ((w * 5) % WINDOWS) * 3 - 10;
/** Zero-mean noise of each run, ±1.15: (7k mod 24) runs over 0 … 23 once, centred on 11.5. */
const noise = (k: number) => (((k * 7) % N) - 11.5) / 10;
/** Another draw of the same noise, so a cell and its baseline do not share theirs. */
const noise2 = (k: number) => (((k * 11) % N) - 11.5) / 10;

function cell(name: string, edge: number, runs = N): ExperimentRun[] {
  const out: ExperimentRun[] = [];
  for (let k = 0; k < runs; k++) {
    const w = Math.floor(k / REPEATS);
    const own = name === "none" ? noise2(k) : noise(k);
    out.push({
      window: `2012-w${w}`,
      repeat: k % REPEATS,
      metrics: { returnPct: market(w) + own + edge },
    });
  }
  // Listed in reverse: pairing must go by (window, repeat), not by position.
  return out.reverse();
}

const against = (name: string, edge: number, runs = N): CellAgainstBaseline => ({
  cell: name,
  baseline: "none",
  cellRuns: cell(name, edge, runs),
  baselineRuns: cell("none", 0, runs),
});

describe("significance on known cells", () => {
  it("finds the real difference and not the absent one", () => {
    const [real, absent] = compareCells(
      [against("layered", 1.5), against("files", 0)],
      "returnPct",
    );
    // 24 pairs: beyond 16, Monte Carlo with the seed recorded.
    expect(real!.test).toMatchObject({ method: "monte-carlo", seed: 1, pairs: N });
    expect(real!.difference.mean.value).toBeCloseTo(1.5, 9); // both noises average 0
    expect(real!.significant).toBe(true);
    expect(real!.sentence).toMatch(
      /^layered beat none on \d+ of 24 pairs \(8 windows × 3 repeats\).*: significant at 5%$/,
    );
    expect(absent!.difference.mean.value).toBeCloseTo(0, 9);
    expect(absent!.significant).toBe(false);
    expect(absent!.pAdjusted.value).toBeGreaterThan(0.5);
    expect(absent!.sentence).toMatch(/: not significant$/);
    // Unpaired, the windows would swamp it: each side's returns spread far more than the
    // differences do.
    const own = summarizeCell(cell("layered", 1.5)).returnPct;
    expect(own.sd.value!).toBeGreaterThan(5);
    expect(real!.difference.sd.value!).toBeLessThan(1.5);
  });

  it("comes with a large enough edge and goes when the edge or the pairs shrink", () => {
    const verdict = (edge: number, runs = N) =>
      compareCells([against("layered", edge, runs)], "returnPct")[0]!.significant;
    expect(verdict(0)).toBe(false);
    expect(verdict(0.1)).toBe(false);
    expect(verdict(1.5)).toBe(true);
    // The same real edge on one window's 3 repeats: the smallest p 3 pairs can give is 0.25.
    const few = compareCells([against("layered", 1.5, 3)], "returnPct")[0]!;
    expect(few.test.method).toBe("exact");
    expect(few.significant).toBe(false);
    expect(few.sentence).toMatch(
      /not significant, and cannot be: with 3 pairs the smallest possible p is 0\.25$/,
    );
  });

  it("adjusts across cells: a cell significant alone is not among many null ones", () => {
    // Seven windows, d = (1, 2, 3, 4, 5, 6, −0.5): Σ = 20.5 of Σ|d| = 21.5. Only the pattern
    // itself (20.5), the one that flips −0.5 (21.5) and their mirrors reach |Σ| ≥ 20.5:
    // exact p = 4/2⁷ = 0.03125.
    const d = [1, 2, 3, 4, 5, 6, -0.5];
    const base = d.map((_, w) => market(w));
    const borderline: CellAgainstBaseline = {
      cell: "persistent",
      baseline: "none",
      cellRuns: d.map((x, w) => ({
        window: `w${w}`,
        repeat: 0,
        metrics: { returnPct: base[w]! + x },
      })),
      baselineRuns: base.map((b, w) => ({ window: `w${w}`, repeat: 0, metrics: { returnPct: b } })),
    };
    const [alone] = compareCells([borderline], "returnPct");
    expect(alone!.test.p.value).toBeCloseTo(4 / 128, 9);
    expect(alone!.pAdjusted.value).toBeCloseTo(4 / 128, 9);
    expect(alone!.significant).toBe(true);
    expect(alone!.sentence).toMatch(/p=0\.031: significant at 5%$/);

    const all = compareCells(
      [against("layered", 1.5), borderline, against("files", 0), against("auto", 0.05)],
      "returnPct",
    );
    const [real, border, ...nulls] = all;
    expect(all.every((c) => c.comparisons === 4)).toBe(true);
    // BH: the real cell ranks first, the borderline second: 4 · 0.03125 / 2 = 0.0625 > 0.05,
    // unless a larger p's adjusted value is smaller (it is not: the null ones are near 1).
    expect(real!.significant).toBe(true);
    expect(border!.pAdjusted.value).toBeCloseTo((4 * (4 / 128)) / 2, 9);
    expect(border!.significant).toBe(false);
    expect(border!.sentence).toMatch(/p=0\.063 after correction: not significant$/);
    for (const c of nulls) expect(c.significant).toBe(false);
    // Adjusting never lowers a p-value.
    for (const c of all) expect(c.pAdjusted.value!).toBeGreaterThanOrEqual(c.test.p.value!);
  });
});
