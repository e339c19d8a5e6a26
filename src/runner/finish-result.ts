import type { MarketData } from "../engine/types.js";
import { countOrders, rejectionWarning } from "../rundir/order-outcomes.js";
import { computeRunMetrics, type RunMetrics } from "../rundir/run-metrics.js";
import type { RunResult } from "../rundir/run-result.js";
import { VERSION } from "../version.js";
import { RESULT_SCHEMA_VERSION } from "./run-config.js";
import type { Simulated } from "./simulate.js";

/** Puts metrics into a result whose other fields finishResult filled. */
export function applyRunMetrics(result: RunResult, m: RunMetrics): void {
  if (m === null) {
    result.nullReasons = { metrics: "no bar was simulated" };
    return;
  }
  result.metrics = m.metrics.metrics;
  result.nullReasons = m.metrics.nullReasons;
  if (m.benchmark === null) return;
  result.benchmark.metrics = m.benchmark.metrics;
  result.benchmark.nullReasons = m.benchmark.nullReasons;
}

/**
 * Fills a result from what the core simulated: status and error, the period actually simulated,
 * order and trade counts, metrics beside buy-and-hold, and the rejections warning. One place for
 * the runner (result.json) and the in-memory `backtest()`. `metrics`: computed elsewhere (equity.csv's
 * worker), or "later" when the caller applies them itself (applyRunMetrics); computed here when
 * not given.
 */
export function finishResult(
  result: RunResult,
  s: Simulated,
  initialCash: number,
  metrics: RunMetrics | "later" = computeRunMetrics(s, initialCash),
): void {
  result.status = s.status;
  result.error = s.error;
  if (s.stopReason !== undefined && s.status !== "failed") result.stopReason = s.stopReason;
  // The first simulated bar → the last bar whose close was processed (an interrupted, stopped or
  // failed run ends before the requested window does).
  const simulated = s.lastIndex >= s.startIndex;
  result.period.start = simulated ? s.label(s.startIndex) : null;
  result.period.end = simulated ? s.label(s.lastIndex) : null;
  result.period.bars = simulated ? s.lastIndex - s.startIndex + 1 : 0;
  result.orders = countOrders(s.orders);
  let openAtEnd = 0;
  let dataEnded = 0;
  for (const t of s.trades) {
    if (t.openAtEnd) openAtEnd++;
    if (t.exitReason === "data_ended") dataEnded++;
  }
  result.trades = { closed: s.trades.length - openAtEnd, openAtEnd, dataEnded };
  if (metrics !== "later") applyRunMetrics(result, metrics);
  const rejections = rejectionWarning(result.orders);
  if (rejections !== null) {
    result.warnings.push(rejections);
    // A run with rejections and no fill (every order rejected, or the rest still working,
    // cancelled or expired) did not test the strategy: never `completed`.
    if (result.status === "completed" && result.orders.filled === 0) {
      result.status = "failed";
      result.error = {
        type: "AllOrdersRejected",
        message: `${rejections}\nThe backtest did not test the strategy: fix the orders or the broker options (e.g. --allow-short, --cash, --fractional) and run again.`,
      };
    }
  }
}

/** What a run's result says before its first bar (status `running`): the runner writes it to
 * result.json at once, and `backtest()` fills it in memory; finishResult completes it. */
export function startResult(s: {
  id: string;
  name: string;
  strategy: RunResult["strategy"];
  dataInfo: RunResult["data"];
  data: MarketData;
  startIndex: number;
  label: (i: number) => string;
  warnings: string[];
  loadMs: number;
  startedAt: string;
}): RunResult {
  const { data, startIndex, label } = s;
  return {
    schemaVersion: RESULT_SCHEMA_VERSION,
    id: s.id,
    name: s.name,
    status: "running",
    error: null,
    strategy: s.strategy,
    data: s.dataInfo,
    // Nothing simulated yet: finishResult sets the period actually simulated.
    period: {
      start: null,
      end: null,
      bars: 0,
      warmupBars: startIndex,
      requested: {
        start: data.times.length > startIndex ? label(startIndex) : null,
        end: data.times.length > 0 ? label(data.times.length - 1) : null,
        bars: data.times.length - startIndex,
      },
    },
    metrics: null,
    nullReasons: {},
    benchmark: {
      kind: "buy_and_hold",
      description:
        "equal weight across symbols, each bought at its first close in the window, no costs",
      symbols: [...data.symbols],
      metrics: null,
      nullReasons: {},
    },
    trades: { closed: 0, openAtEnd: 0, dataEnded: 0 },
    orders: countOrders([]),
    memory: null,
    index: null,
    warnings: s.warnings,
    timings: { loadMs: s.loadMs, simulateMs: 0, writeMs: 0, totalMs: 0 },
    startedAt: s.startedAt,
    finishedAt: null,
    agenticbt: { version: VERSION, node: process.version },
    llm: null,
  };
}

/** A timing for result.json: milliseconds to one decimal. */
export const roundMs = (ms: number) => Math.round(ms * 10) / 10;
