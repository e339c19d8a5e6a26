import { simpleReturns } from "../metrics/returns.js";
import type { CombinationOutcome } from "./run-combination.js";

// The seam for the statistics of the search itself (Probabilistic and Deflated Sharpe Ratio,
// Probability of Backtest Overfitting by CSCV): they are computed in src/metrics/overfitting/
// and wired in here. Until then each figure is null with its reason, as result.json's are.

/** A figure of the search, or null with the reason it means nothing (or is not computed). */
export interface SearchFigure {
  value: number | null;
  reason: string | null;
}

/** summary.json's `statistics`. */
export interface SearchStatistics {
  /** Combinations tried (completed or failed): the N a best-of-N result is deflated by. */
  trials: number;
  /** The best combination's Probabilistic Sharpe Ratio (against a Sharpe of 0). */
  psr: SearchFigure;
  /** The best combination's Deflated Sharpe Ratio (the trials and the Sharpe variance across them). */
  dsr: SearchFigure;
  /** The Probability of Backtest Overfitting over the combinations' return series. */
  pbo: SearchFigure;
}

/** What the statistics are computed from. */
export interface SearchInput {
  outcomes: readonly CombinationOutcome[];
  /** Per-bar simple returns of a completed combination (null: none recorded), read when asked: a
   * sweep over a million bars never holds every combination's series at once. */
  returnsOf: (index: number) => Float64Array | null;
  /** The index of the best combination (null: none completed with the metric). */
  best: number | null;
}

const NOT_YET = "not computed yet";

/** The search's statistics (the overfitting figures are wired here; see above). */
export function searchStatistics(input: SearchInput): SearchStatistics {
  return {
    trials: input.outcomes.length,
    psr: { value: null, reason: NOT_YET },
    dsr: { value: null, reason: NOT_YET },
    pbo: { value: null, reason: NOT_YET },
  };
}

/** A combination's per-bar returns from its equity at each close (n closes give n − 1 returns). */
export const barReturns = (equity: Float64Array): Float64Array => simpleReturns(equity);
