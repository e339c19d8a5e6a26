import { type Figure, figure, noFigure } from "../figure.js";
import { deflatedSharpe, perBarSharpe, trialSharpeVariance } from "../overfitting/sharpe-stats.js";

/**
 * The Deflated Sharpe Ratio of an experiment's best cell: the cells are the trials (an
 * experiment tries each and a reader picks the best), a cell's returns are the per-bar returns of
 * its runs one after the other. The formulas are src/metrics/overfitting/sharpe-stats.ts's.
 */
export interface ExperimentDeflatedSharpe {
  /** The index (in the cells given) of the cell with the highest per-bar Sharpe; null: none has one. */
  cell: number | null;
  /** Cells with a per-bar Sharpe ratio: the N the best is deflated by. */
  trials: number;
  /** The best cell's per-bar returns (every run's, pooled). */
  observations: number;
  /** Sample variance of the per-bar Sharpe ratio across the trials (V). */
  sharpeVariance: Figure;
  /** The per-bar Sharpe the best of N skill-less cells is expected to show. */
  expectedMaxSharpe: Figure;
  /** The best cell's per-bar Sharpe ratio (not annualised). */
  bestSharpePerBar: Figure;
  /** The best cell's Probabilistic Sharpe Ratio against 0. */
  psr: Figure;
  /** PSR against expectedMaxSharpe: the chance the best cell's true Sharpe beats luck's best. */
  dsr: Figure;
}

/** A cell's runs' per-bar returns in one series (no return spans two runs). */
function pooled(runs: readonly ArrayLike<number>[]): Float64Array {
  const out = new Float64Array(runs.reduce((n, r) => n + r.length, 0));
  let k = 0;
  for (const r of runs) for (let i = 0; i < r.length; i++) out[k++] = r[i]!;
  return out;
}

/**
 * DSR of the best of `cells`, each given as its runs' per-bar returns (in a fixed order: the
 * figures do not depend on it, but the pooled series does). The best is the cell whose pooled
 * returns have the highest finite per-bar Sharpe ratio (the first on a tie).
 */
export function experimentDeflatedSharpe(
  cells: readonly (readonly ArrayLike<number>[])[],
): ExperimentDeflatedSharpe {
  const series = cells.map(pooled);
  const sharpes = series.map((r) => perBarSharpe(r));
  let best: number | null = null;
  for (const [i, s] of sharpes.entries())
    if (Number.isFinite(s) && (best === null || s > (sharpes[best] as number))) best = i;
  const trials = sharpes.filter(Number.isFinite).length;
  const variance = trialSharpeVariance(sharpes);
  const none = (reason: string): ExperimentDeflatedSharpe => ({
    cell: best,
    trials,
    observations: best === null ? 0 : (series[best]?.length ?? 0),
    sharpeVariance: variance,
    expectedMaxSharpe: noFigure(reason),
    bestSharpePerBar: noFigure(reason),
    psr: noFigure(reason),
    dsr: noFigure(reason),
  });
  if (best === null)
    return none(
      "no cell has a finite per-bar Sharpe ratio (it needs 2 returns, and a flat series that gained or lost has an infinite one)",
    );
  const returns = series[best] as Float64Array;
  const d = deflatedSharpe({ returns, trials, sharpeVariance: variance.value ?? 0 });
  if (d.psr.value === null) return none(d.psr.reason);
  // One cell with a Sharpe: nothing was selected, and expectedMaxSharpe (so the DSR) says so.
  // Two or more make the variance, which deflatedSharpe was given.
  return {
    ...none(""),
    expectedMaxSharpe: d.expectedMaxSharpe,
    bestSharpePerBar: figure(d.sharpe),
    psr: d.psr,
    dsr: d.dsr,
  };
}
