import { type Figure, figure, noFigure } from "../metrics/overfitting/figure.js";
import {
  type BlockSummary,
  blockSummary,
  probabilityOfOverfittingFromBlocks,
} from "../metrics/overfitting/pbo.js";
import {
  deflatedSharpe,
  perBarSharpe,
  trialSharpeVariance,
} from "../metrics/overfitting/sharpe-stats.js";
import { simpleReturns } from "../metrics/returns.js";
import type { CombinationOutcome } from "./run-combination.js";

// The statistics of the search itself: how much a best-of-N result owes to the search. The
// formulas are in src/metrics/overfitting/ (docs/statistics.md); this file feeds them a sweep's
// per-bar returns, one combination at a time, so a sweep over a million bars never holds every
// combination's series at once: PBO keeps each one's CSCV block summary (2·S numbers) instead.

/** A figure of the search, or null with the reason it means nothing. */
export type SearchFigure = Figure;

/** summary.json's `statistics`. */
export interface SearchStatistics {
  /** Combinations tried (completed or failed). */
  trials: number;
  /** Completed combinations with a per-bar Sharpe ratio: the N a best-of-N result is deflated by. */
  sharpeTrials: number;
  /** Sample variance of the per-bar Sharpe ratio across those trials (DSR's V). */
  sharpeVariance: SearchFigure;
  /** The per-bar Sharpe ratio the best of that many skill-less trials is expected to show. */
  expectedMaxSharpe: SearchFigure;
  /** The best combination's per-bar Sharpe ratio (mean / std of its returns, not annualised). */
  bestSharpePerBar: SearchFigure;
  /** The best combination's Probabilistic Sharpe Ratio (against a Sharpe of 0). */
  psr: SearchFigure;
  /** The best combination's Deflated Sharpe Ratio (PSR against expectedMaxSharpe). */
  dsr: SearchFigure;
  /** The Probability of Backtest Overfitting by CSCV over the combinations' return series. */
  pbo: SearchFigure;
  /** Share of CSCV splits whose in-sample best lost money out of sample (per-bar Sharpe < 0). */
  probabilityOfLoss: SearchFigure;
  /** S, the CSCV blocks; and the combinations PBO is over (completed, every bar recorded). */
  cscvBlocks: number;
  pboCombinations: number;
}

/** What the statistics are computed from. */
export interface SearchInput {
  outcomes: readonly CombinationOutcome[];
  /** Per-bar simple returns of a completed combination (null: none recorded), read when asked. */
  returnsOf: (index: number) => Float64Array | null;
  /** The index of the best combination (null: none completed with the metric). */
  best: number | null;
  /** S of CSCV: an even whole number from 2 to 30 (checked before the sweep runs). */
  cscvBlocks: number;
}

/** The search's statistics: PSR and DSR of the best combination, PBO over all of them. */
export function searchStatistics(input: SearchInput): SearchStatistics {
  const { outcomes, returnsOf, best, cscvBlocks } = input;
  const sharpes: number[] = [];
  // Block summaries by series length: only the full-length series line up for CSCV (a run the
  // strategy stopped early has fewer bars).
  const byLength = new Map<number, BlockSummary[]>();
  let bestReturns: Float64Array | null = null;
  for (const o of [...outcomes].sort((a, b) => a.index - b.index)) {
    if (o.status !== "completed") continue;
    const r = returnsOf(o.index);
    if (r === null) continue;
    sharpes.push(perBarSharpe(r));
    if (o.index === best) bestReturns = r;
    if (r.length >= cscvBlocks) {
      const list = byLength.get(r.length) ?? [];
      list.push(blockSummary(r, cscvBlocks));
      byLength.set(r.length, list);
    }
  }
  const sharpeTrials = sharpes.filter(Number.isFinite).length;
  const variance = trialSharpeVariance(sharpes);
  const deflated = dsrOf(bestReturns, best, sharpeTrials, variance);
  const bars = Math.max(0, ...byLength.keys());
  const summaries = byLength.get(bars) ?? [];
  const pbo = probabilityOfOverfittingFromBlocks({ summaries, bars, blocks: cscvBlocks });
  const left = sharpes.length - summaries.length;
  const note =
    left > 0
      ? ` (${left} completed combination(s) left out: their runs ended before the last bar, or have fewer than ${cscvBlocks} returns)`
      : "";
  const why = (f: Figure): Figure => (f.value === null ? noFigure(`${f.reason}${note}`) : f);
  return {
    trials: outcomes.length,
    sharpeTrials,
    sharpeVariance: variance,
    ...deflated,
    pbo: why(pbo.pbo),
    probabilityOfLoss: why(pbo.probabilityOfLoss),
    cscvBlocks,
    pboCombinations: summaries.length,
  };
}

function dsrOf(
  returns: Float64Array | null,
  best: number | null,
  trials: number,
  variance: Figure,
): Pick<SearchStatistics, "expectedMaxSharpe" | "bestSharpePerBar" | "psr" | "dsr"> {
  const none = (reason: string) => ({
    expectedMaxSharpe: noFigure(reason),
    bestSharpePerBar: noFigure(reason),
    psr: noFigure(reason),
    dsr: noFigure(reason),
  });
  if (best === null) return none("no combination completed with a value of the objective");
  if (returns === null) return none("the best combination's equity was not recorded");
  const d = deflatedSharpe({ returns, trials, sharpeVariance: variance.value ?? 0 });
  const expected = variance.value === null ? noFigure(variance.reason) : d.expectedMaxSharpe;
  return {
    expectedMaxSharpe: expected,
    bestSharpePerBar: d.psr.value === null ? noFigure(d.psr.reason) : figure(d.sharpe),
    psr: d.psr,
    dsr: d.psr.value === null ? d.psr : expected.value === null ? noFigure(expected.reason) : d.dsr,
  };
}

/** A combination's per-bar returns from its equity at each close (n closes give n − 1 returns). */
export const barReturns = (equity: Float64Array): Float64Array => simpleReturns(equity);
