import type { ClosedTrade } from "../engine/types.js";
import type { BenchmarkReturns } from "./alpha-beta.js";

export interface MetricsInput {
  /** Milliseconds since the epoch of the wall-clock time as written (calendar read with UTC getters). */
  times: Float64Array;
  /** Equity at each bar's close, same length as `times`. */
  equity: Float64Array;
  initialCash: number;
  trades: readonly ClosedTrade[];
  /** Buy-and-hold equity on the same times, starting at `initialCash`. */
  benchmark: Float64Array;
  /** Bars with an open position at the close. */
  exposedBars: number;
  /** Total commissions paid, in money. */
  commissions: number;
  /** Total slippage cost, in money. */
  slippage: number;
  /** The benchmark's log returns for beta, computed once already (`benchmarkReturns`). */
  benchmarkReturns?: BenchmarkReturns | null;
}

/**
 * result.json `metrics`: a flat record. A null always has an entry in `nullReasons` saying why;
 * percentages are in percent (12.3 = 12.3 %), drawdowns negative, durations in fractional days.
 */
export interface Metrics {
  start: string | null;
  end: string | null;
  durationDays: number | null;
  bars: number;
  exposurePct: number | null;
  equityFinal: number | null;
  equityPeak: number | null;
  returnPct: number | null;
  buyHoldReturnPct: number | null;
  returnAnnPct: number | null;
  volatilityAnnPct: number | null;
  cagrPct: number | null;
  sharpe: number | null;
  sortino: number | null;
  calmar: number | null;
  alphaPct: number | null;
  beta: number | null;
  maxDrawdownPct: number | null;
  avgDrawdownPct: number | null;
  maxDrawdownDurationDays: number | null;
  avgDrawdownDurationDays: number | null;
  trades: number;
  winRatePct: number | null;
  bestTradePct: number | null;
  worstTradePct: number | null;
  avgTradePct: number | null;
  maxTradeDurationDays: number | null;
  avgTradeDurationDays: number | null;
  profitFactor: number | null;
  expectancyPct: number | null;
  sqn: number | null;
  kellyCriterion: number | null;
  commissions: number | null;
  slippage: number | null;
  periodsPerYear: number | null;
}

/** The curve-only subset of `Metrics`, for the buy-and-hold benchmark. */
export type BenchmarkMetrics = Pick<
  Metrics,
  | "returnPct"
  | "returnAnnPct"
  | "volatilityAnnPct"
  | "cagrPct"
  | "sharpe"
  | "sortino"
  | "calmar"
  | "maxDrawdownPct"
  | "avgDrawdownPct"
  | "maxDrawdownDurationDays"
  | "avgDrawdownDurationDays"
>;

export interface MetricsResult<T> {
  metrics: T;
  /** Field name → plain-English reason, for every field that is null. */
  nullReasons: Record<string, string>;
}
