import type { BenchmarkReturns } from "../metrics/alpha-beta.js";
import {
  type BenchmarkMetrics,
  computeBenchmarkMetrics,
  computeMetrics,
  type Metrics,
  type MetricsResult,
} from "../metrics/compute-metrics.js";
import type { ReportedTrade } from "./write-outputs.js";

/** A run's metrics beside buy-and-hold's (null when not asked for); null when no bar was
 * simulated. */
export type RunMetrics = {
  metrics: MetricsResult<Metrics>;
  benchmark: MetricsResult<BenchmarkMetrics> | null;
} | null;

/** What the metrics are computed from: a simulation's curves and trades (the runner's Simulated). */
export interface MetricsSource {
  startIndex: number;
  lastIndex: number;
  times: Float64Array;
  equity: Float64Array;
  benchmark: Float64Array;
  trades: ReportedTrade[];
  exposedBars: number;
  commissions: number;
  slippage: number;
}

/** Pure: the same numbers in any thread (a long run has equity.csv's worker compute them).
 * For a sweep's combinations, which share one benchmark: `benchmark` false leaves buy-and-hold's
 * own statistics out (an outcome does not report them), and `benchmarkReturns` is beta's
 * benchmark part computed once. */
export function computeRunMetrics(
  s: MetricsSource,
  initialCash: number,
  o: { benchmark?: boolean; benchmarkReturns?: BenchmarkReturns | null } = {},
): RunMetrics {
  if (s.lastIndex < s.startIndex) return null;
  return {
    metrics: computeMetrics({
      times: s.times,
      equity: s.equity,
      initialCash,
      trades: s.trades,
      benchmark: s.benchmark,
      exposedBars: s.exposedBars,
      commissions: s.commissions,
      slippage: s.slippage,
      ...(o.benchmarkReturns !== undefined ? { benchmarkReturns: o.benchmarkReturns } : {}),
    }),
    benchmark: o.benchmark === false ? null : computeBenchmarkMetrics(s.times, s.benchmark),
  };
}
