import { ZERO_VOLATILITY } from "../metrics/curve-stats.js";
import { type Figure, figure, noFigure } from "../metrics/figure.js";
import {
  type BlockSummary,
  blockSummary,
  probabilityOfOverfittingFromBlocks,
} from "../metrics/overfitting/pbo.js";
import {
  deflatedSharpe,
  perBarSharpe,
  returnMoments,
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
  const trials = new SearchTrials(cscvBlocks);
  let bestReturns: Float64Array | null = null;
  for (const o of outcomes) {
    if (o.status !== "completed") continue;
    const r = returnsOf(o.index);
    if (r === null) continue;
    trials.add(o.index, r);
    if (o.index === best) bestReturns = r;
  }
  return trials.statistics(outcomes.length, best, bestReturns);
}

/**
 * The statistics gathered one combination at a time, in any order (threads): what DSR and PBO
 * need of each series (its per-bar Sharpe and CSCV block summary), not the series. Taken in index
 * order at the end, so the figures do not depend on the order the combinations arrived in.
 */
export class SearchTrials {
  private readonly seen = new Map<
    number,
    { sharpe: number; length: number; moved: boolean; blocks: BlockSummary | null }
  >();

  constructor(private readonly cscvBlocks: number) {}

  /** A completed combination's per-bar returns (a second call for an index replaces the first). */
  add(index: number, returns: Float64Array): void {
    this.seen.set(index, {
      sharpe: perBarSharpe(returns),
      length: returns.length,
      moved: returnMoments(returns).std > ZERO_VOLATILITY,
      blocks: returns.length >= this.cscvBlocks ? blockSummary(returns, this.cscvBlocks) : null,
    });
  }

  /** The statistics of `tried` combinations, the best being `best` with returns `bestReturns`. */
  statistics(
    tried: number,
    best: number | null,
    bestReturns: Float64Array | null,
  ): SearchStatistics {
    const { cscvBlocks } = this;
    const entries = [...this.seen.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
    const sharpes = entries.map((e) => e.sharpe);
    const sharpeTrials = sharpes.filter(Number.isFinite).length;
    const variance = trialSharpeVariance(sharpes);
    const deflated = dsrOf(bestReturns, best, sharpeTrials, variance);
    // Only the full-length series line up for CSCV (a run the strategy stopped early is shorter).
    const bars = Math.max(0, ...entries.filter((e) => e.blocks !== null).map((e) => e.length));
    const summaries = entries
      .filter((e) => e.blocks !== null && e.length === bars)
      .map((e) => e.blocks as BlockSummary);
    const moved = entries.filter((e) => e.blocks !== null && e.length === bars && e.moved).length;
    const pbo =
      summaries.length >= 2 && moved < 2
        ? { pbo: noFigure(FLAT), probabilityOfLoss: noFigure(FLAT) }
        : probabilityOfOverfittingFromBlocks({ summaries, bars, blocks: cscvBlocks });
    const left = entries.length - summaries.length;
    const note =
      left > 0
        ? ` (${left} completed combination(s) left out: their runs ended before the last bar, or have fewer than ${cscvBlocks} returns)`
        : "";
    const why = (f: Figure): Figure => (f.value === null ? noFigure(`${f.reason}${note}`) : f);
    return {
      trials: tried,
      sharpeTrials,
      sharpeVariance: variance,
      ...deflated,
      pbo: why(pbo.pbo),
      probabilityOfLoss: why(pbo.probabilityOfLoss),
      cscvBlocks,
      pboCombinations: summaries.length,
    };
  }
}

const FLAT =
  "zero variance: the equity of fewer than 2 combinations moved, so there is nothing to rank";

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
