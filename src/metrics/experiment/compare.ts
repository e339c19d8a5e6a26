import { figure, noFigure } from "../figure.js";
import { benjaminiHochberg } from "./benjamini-hochberg.js";
import type { ExperimentMetric, ExperimentRun } from "./metrics.js";
import { type CellComparison, type PairedOptions, pairedComparison } from "./paired.js";
import { comparisonSentence } from "./sentence.js";

/** The significance level by default: an adjusted p at or below it is significant. */
export const DEFAULT_ALPHA = 0.05;

export interface CellAgainstBaseline {
  cell: string;
  baseline: string;
  cellRuns: readonly ExperimentRun[];
  baselineRuns: readonly ExperimentRun[];
}

export type { CellComparison } from "./paired.js";

export interface CompareOptions extends PairedOptions {
  /** 0 < alpha < 1 (default 0.05): the false discovery rate Benjamini–Hochberg controls. */
  alpha?: number;
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
