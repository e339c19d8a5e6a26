import type { Figure } from "../figure.js";
import type { BootstrapOptions } from "./bootstrap.js";
import type { ExperimentMetric, ExperimentRun } from "./metrics.js";
import { type SignFlipTest, signFlipTest } from "./sign-flip.js";
import { type Summary, summarize } from "./summary.js";

export interface PairedOptions extends BootstrapOptions {
  /** Random sign patterns of the permutation test beyond 16 pairs (default 10,000). */
  permutations?: number;
}

/** A run with a figure whose partner on the other side has none (no run, or a null figure). */
export interface UnpairedRun {
  window: string;
  repeat: number;
  has: "cell" | "baseline";
}

/** One cell against its baseline on one metric, paired on (window, repeat). */
export interface PairedComparison {
  metric: ExperimentMetric;
  /** Pairs where both runs have a finite figure: the n of every statistic below. */
  pairs: number;
  /** Distinct windows and repeat indices among the pairs. */
  windows: number;
  repeats: number;
  unpaired: UnpairedRun[];
  /** Pairs where the cell's figure is above, below, equal to the baseline's. */
  higher: number;
  lower: number;
  equal: number;
  /** Of the differences cell − baseline, in (window, repeat) order: mean, SD, … and its CI. */
  difference: Summary;
  test: SignFlipTest;
}

/** A paired comparison with its p-value adjusted across cells, its verdict and sentence. */
export interface CellComparison extends PairedComparison {
  cell: string;
  baseline: string;
  /** The permutation p adjusted by Benjamini–Hochberg across the comparisons given together. */
  pAdjusted: Figure;
  /** How many comparisons had a p-value: the m of the adjustment. */
  comparisons: number;
  alpha: number;
  /** pAdjusted ≤ alpha; null when there is no p-value. */
  significant: boolean | null;
  /** The result in words (see comparisonSentence). */
  sentence: string;
}

/** The finite figures of one side by "window\u0000repeat"; two runs on one key is an error. */
function byKey(
  side: string,
  runs: readonly ExperimentRun[],
  metric: ExperimentMetric,
): Map<string, { window: string; repeat: number; value: number | null }> {
  const out = new Map<string, { window: string; repeat: number; value: number | null }>();
  for (const run of runs) {
    const key = `${run.window}\u0000${run.repeat}`;
    if (out.has(key))
      throw new RangeError(
        `${side} has two runs for window ${run.window} repeat ${run.repeat}: ` +
          "give each (window, repeat) once, so that the pairs are unambiguous",
      );
    const v = run.metrics[metric];
    const value = typeof v === "number" && Number.isFinite(v) ? v : null;
    out.set(key, { window: run.window, repeat: run.repeat, value });
  }
  return out;
}

const order = (
  a: { window: string; repeat: number },
  b: { window: string; repeat: number },
): number => (a.window < b.window ? -1 : a.window > b.window ? 1 : a.repeat - b.repeat);

/**
 * The cell's runs against the baseline's on one metric: each (window, repeat) present with a
 * finite figure on both sides is a pair, and d = cell − baseline. The bootstrap and the
 * permutation test use the same seed (recorded in each).
 */
export function pairedComparison(
  cellRuns: readonly ExperimentRun[],
  baselineRuns: readonly ExperimentRun[],
  metric: ExperimentMetric,
  options: PairedOptions = {},
): PairedComparison {
  const cell = byKey("the cell", cellRuns, metric);
  const base = byKey("the baseline", baselineRuns, metric);
  const pairs: { window: string; repeat: number; d: number }[] = [];
  const unpaired: UnpairedRun[] = [];
  for (const [key, c] of cell) {
    const b = base.get(key);
    if (c.value !== null && b !== undefined && b.value !== null)
      pairs.push({ window: c.window, repeat: c.repeat, d: c.value - b.value });
    else if (c.value !== null) unpaired.push({ window: c.window, repeat: c.repeat, has: "cell" });
  }
  for (const [key, b] of base) {
    const c = cell.get(key);
    if (b.value !== null && (c === undefined || c.value === null))
      unpaired.push({ window: b.window, repeat: b.repeat, has: "baseline" });
  }
  pairs.sort(order);
  unpaired.sort(order);
  const differences = pairs.map((p) => p.d);
  return {
    metric,
    pairs: pairs.length,
    windows: new Set(pairs.map((p) => p.window)).size,
    repeats: new Set(pairs.map((p) => p.repeat)).size,
    unpaired,
    higher: differences.filter((d) => d > 0).length,
    lower: differences.filter((d) => d < 0).length,
    equal: differences.filter((d) => d === 0).length,
    difference: summarize(differences, options),
    test: signFlipTest(differences, { permutations: options.permutations, seed: options.seed }),
  };
}
