import { isIntraday, timeLabel } from "../engine/calendar.js";
import { computeAlphaPct, computeBeta } from "./alpha-beta.js";
import { because, type Computed, MetricsRecorder } from "./computed.js";
import { computeCurveStats } from "./curve-stats.js";
import { computeTradeStats } from "./trade-stats.js";
import type { Metrics, MetricsInput, MetricsResult } from "./types.js";

/**
 * Every performance metric of a finished run. Pure and synchronous; conventions follow
 * backtesting.py's compute_stats (docs/metrics.md gives the formulas and where we differ).
 */
export function computeMetrics(input: MetricsInput): MetricsResult<Metrics> {
  const { times, equity, initialCash, trades, benchmark } = input;
  const bars = equity.length;
  const r = new MetricsRecorder();
  const intraday = isIntraday(times);
  const curve = computeCurveStats(times, equity, initialCash);
  const t = computeTradeStats(trades);
  const buyHold = buyHoldReturnPct(benchmark);
  const beta = computeBeta(equity, benchmark, input.benchmarkReturns);
  const exposure: Computed = bars === 0 ? because("no bars") : (input.exposedBars / bars) * 100;

  const metrics: Metrics = {
    start: label(times[0], intraday, "start", r),
    end: label(times[times.length - 1], intraday, "end", r),
    durationDays: r.take("durationDays", curve.durationDays),
    bars,
    exposurePct: r.take("exposurePct", exposure),
    equityFinal: r.take("equityFinal", curve.equityFinal),
    equityPeak: r.take("equityPeak", curve.equityPeak),
    returnPct: r.take("returnPct", curve.returnPct),
    buyHoldReturnPct: r.take("buyHoldReturnPct", buyHold),
    returnAnnPct: r.take("returnAnnPct", curve.returnAnnPct),
    volatilityAnnPct: r.take("volatilityAnnPct", curve.volatilityAnnPct),
    cagrPct: r.take("cagrPct", curve.cagrPct),
    sharpe: r.take("sharpe", curve.sharpe),
    sortino: r.take("sortino", curve.sortino),
    calmar: r.take("calmar", curve.calmar),
    alphaPct: r.take("alphaPct", computeAlphaPct(curve.returnPct, beta, buyHold)),
    beta: r.take("beta", beta),
    maxDrawdownPct: r.take("maxDrawdownPct", curve.maxDrawdownPct),
    avgDrawdownPct: r.take("avgDrawdownPct", curve.avgDrawdownPct),
    maxDrawdownDurationDays: r.take("maxDrawdownDurationDays", curve.maxDrawdownDurationDays),
    avgDrawdownDurationDays: r.take("avgDrawdownDurationDays", curve.avgDrawdownDurationDays),
    trades: t.trades,
    winRatePct: r.take("winRatePct", t.winRatePct),
    bestTradePct: r.take("bestTradePct", t.bestTradePct),
    worstTradePct: r.take("worstTradePct", t.worstTradePct),
    avgTradePct: r.take("avgTradePct", t.avgTradePct),
    maxTradeDurationDays: r.take("maxTradeDurationDays", t.maxTradeDurationDays),
    avgTradeDurationDays: r.take("avgTradeDurationDays", t.avgTradeDurationDays),
    profitFactor: r.take("profitFactor", t.profitFactor),
    expectancyPct: r.take("expectancyPct", t.expectancyPct),
    sqn: r.take("sqn", t.sqn),
    kellyCriterion: r.take("kellyCriterion", t.kellyCriterion),
    commissions: r.take("commissions", input.commissions),
    slippage: r.take("slippage", input.slippage),
    periodsPerYear: r.take("periodsPerYear", curve.periodsPerYear),
  };
  return { metrics, nullReasons: r.nullReasons };
}

function buyHoldReturnPct(benchmark: Float64Array): Computed {
  const first = benchmark[0];
  const last = benchmark[benchmark.length - 1];
  if (first === undefined || last === undefined) return because("no benchmark bars");
  if (!(first > 0)) return because("the benchmark does not start above 0");
  return ((last - first) / first) * 100;
}

/** Times are wall clock as written, so they are shown as written: no `Z`, no offset. */
function label(
  time: number | undefined,
  intraday: boolean,
  field: string,
  r: MetricsRecorder,
): string | null {
  if (time === undefined || !Number.isFinite(time)) {
    r.nullReasons[field] = "no bars";
    return null;
  }
  return timeLabel(time, intraday);
}

export { computeBenchmarkMetrics } from "./benchmark-metrics.js";
export type { BenchmarkMetrics, Metrics, MetricsInput, MetricsResult } from "./types.js";
