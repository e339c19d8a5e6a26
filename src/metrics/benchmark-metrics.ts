import { MetricsRecorder } from "./computed.js";
import { computeCurveStats } from "./curve-stats.js";
import type { BenchmarkMetrics, MetricsResult } from "./types.js";

/** Curve statistics of the buy-and-hold benchmark, measured from its own first value. */
export function computeBenchmarkMetrics(
  times: Float64Array,
  benchmark: Float64Array,
): MetricsResult<BenchmarkMetrics> {
  const c = computeCurveStats(times, benchmark, benchmark[0] ?? 0);
  const r = new MetricsRecorder();
  const metrics: BenchmarkMetrics = {
    returnPct: r.take("returnPct", c.returnPct),
    returnAnnPct: r.take("returnAnnPct", c.returnAnnPct),
    volatilityAnnPct: r.take("volatilityAnnPct", c.volatilityAnnPct),
    cagrPct: r.take("cagrPct", c.cagrPct),
    sharpe: r.take("sharpe", c.sharpe),
    sortino: r.take("sortino", c.sortino),
    calmar: r.take("calmar", c.calmar),
    maxDrawdownPct: r.take("maxDrawdownPct", c.maxDrawdownPct),
    avgDrawdownPct: r.take("avgDrawdownPct", c.avgDrawdownPct),
    maxDrawdownDurationDays: r.take("maxDrawdownDurationDays", c.maxDrawdownDurationDays),
    avgDrawdownDurationDays: r.take("avgDrawdownDurationDays", c.avgDrawdownDurationDays),
  };
  return { metrics, nullReasons: r.nullReasons };
}
