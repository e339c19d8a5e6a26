import { benjaminiHochberg } from "./benjamini-hochberg.js";
import { type Figure, figure, noFigure } from "./figure.js";
import type { ExperimentMetric, ExperimentRun } from "./metrics.js";
import { type PairedComparison, type PairedOptions, pairedComparison } from "./paired.js";
import { comparisonSentence } from "./sentence.js";

/** The significance level by default: an adjusted p at or below it is significant. */
export const DEFAULT_ALPHA = 0.05;

export interface CellAgainstBaseline {
  cell: string;
  baseline: string;
  cellRuns: readonly ExperimentRun[];
  baselineRuns: readonly ExperimentRun[];
}

export interface CompareOptions extends PairedOptions {
  /** 0 < alpha < 1 (default 0.05): the false discovery rate Benjamini–Hochberg controls. */
  alpha?: number;
}

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

/**
 * Each cell against its baseline on one metric, with the p-values adjusted across all of them:
 * give every comparison of the experiment on that metric in one call.
 */
export function compareCells(
  entries: readonly CellAgainstBaseline[],
  metric: ExperimentMetric,
  options: CompareOptions = {},
): CellComparison[] {
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha ${alpha} is not between 0 and 1`);
  const paired = entries.map((e) => pairedComparison(e.cellRuns, e.baselineRuns, metric, options));
  const adjusted = benjaminiHochberg(paired.map((c) => c.test.p.value));
  const comparisons = adjusted.filter((p) => p !== null).length;
  return paired.map((c, i) => {
    const p = adjusted[i] ?? null;
    const { cell, baseline } = entries[i]!;
    const figures = {
      ...c,
      cell,
      baseline,
      pAdjusted: p === null ? noFigure(c.test.p.reason ?? "no p-value") : figure(p),
      comparisons,
      alpha,
      significant: p === null ? null : p <= alpha,
    };
    return { ...figures, sentence: comparisonSentence(figures) };
  });
}
