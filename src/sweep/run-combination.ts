import type { BrokerConfig } from "../config/run-settings.js";
import type { MarketData } from "../engine/types.js";
import { IndicatorCache } from "../indicators/indicator-cache.js";
import { type BenchmarkReturns, benchmarkReturns } from "../metrics/alpha-beta.js";
import { buyAndHoldEquity } from "../metrics/buy-and-hold.js";
import type { Metrics } from "../metrics/types.js";
import { computeRunMetrics } from "../rundir/run-metrics.js";
import type { RunError, RunResult, RunStatus } from "../rundir/run-result.js";
import { finishResult, startResult } from "../runner/finish-result.js";
import { checkBroker } from "../runner/library-settings.js";
import { resolveParams } from "../runner/resolve-params.js";
import { simulate } from "../runner/simulate.js";
import type { Params, Strategy } from "../strategy/types.js";
import { sharedFloat64 } from "../util/shared-float64.js";
import { type Axis, applyCombination, type Combination } from "./axes.js";

/** About this much of a thread's memory holds cached indicators before the cache starts over. */
const INDICATOR_CACHE_BYTES = 16 * 2 ** 20;

/** What every combination shares: the run's settings before the axes apply. */
export interface SweepBase {
  /** The first bar of the window (earlier ones are indicator history). */
  startIndex: number;
  broker: BrokerConfig;
  /** `--param` overrides (the axes go over them). */
  params: Params;
  hookTimeoutMs: number | null;
  /** The strategy's file, to point an error at its line (null: a strategy object). */
  strategyPath: string | null;
}

/** One line of results.jsonl: a combination's settings and outcome, every metric of result.json. */
export interface CombinationOutcome {
  index: number;
  settings: Combination;
  status: RunStatus;
  error: RunError | null;
  metrics: Metrics | null;
  nullReasons: Record<string, string>;
  trades: RunResult["trades"];
  orders: RunResult["orders"];
}

/** An outcome with its equity at each close of the window (null: the combination failed before
 * any bar), for the per-bar returns the search statistics use. A view of the run's own column. */
export interface CombinationRun {
  outcome: CombinationOutcome;
  equity: Float64Array | null;
  /**
   * The equity's column is lent (shared memory, one cell: 1 while lent): `releaseEquity` gives it
   * back to its thread to fill again, once its numbers are stored. Never released, it stays the
   * caller's. Null: the column is the caller's.
   */
  lease: Int32Array | null;
}

/** Gives a run's equity column back to the thread that lent it: it is not read after this. */
export function releaseEquity(run: CombinationRun): void {
  if (run.lease !== null) Atomics.store(run.lease, 0, 0);
}

/** Equity columns a thread keeps to lend (more are made while these are lent, and not kept). */
const EQUITY_POOL = 4;

/**
 * Runs combinations in memory through the same core as `agenticbt run` (`simulate`, then the
 * same `finishResult`), so each one's metrics are those of `run` with its settings. One per
 * thread: the indicators are computed once per (symbol, indicator, params) across combinations.
 */
export class CombinationRunner {
  private indicators = new IndicatorCache();
  /** Each distinct broker of the combinations, checked once. */
  private readonly brokers = new Map<string, BrokerConfig>();
  /** Buy-and-hold equity by initial cash: the same for every combination with that cash. */
  private readonly benchmarks = new Map<number, Float64Array>();
  /** The cash column, refilled by each run (nothing of it outlives the run). */
  private cash: Float64Array | null = null;
  private readonly equityPool: { column: Float64Array; lease: Int32Array }[] = [];
  /** The window's times up to a last bar, one view each: what is read of a timeline once (its
   * spacing, whether it is intraday) is known again by the view. */
  private readonly timesViews = new Map<number, Float64Array>();
  private beta: { key: string; known: BenchmarkReturns | null } | null = null;

  constructor(
    private readonly data: MarketData,
    private readonly strategy: Strategy<unknown>,
    private readonly base: SweepBase,
    private readonly axes: readonly Axis[],
  ) {}

  async run(index: number, settings: Combination): Promise<CombinationRun> {
    const { data, strategy, base } = this;
    // A bounded cache: over a million bars each indicator is 8 MB, and a thread keeps its own.
    if (this.indicators.computeCount * data.times.length * 8 > INDICATOR_CACHE_BYTES)
      this.indicators = new IndicatorCache();
    const result = startResult({
      id: "",
      name: strategy.name,
      strategy: { kind: "code", path: base.strategyPath ?? "", name: strategy.name, params: {} },
      dataInfo: [],
      data,
      startIndex: base.startIndex,
      label: () => "",
      warnings: [],
      loadMs: 0,
      startedAt: "",
    });
    let equity: { column: Float64Array; lease: Int32Array | null } | null = null;
    try {
      const applied = applyCombination(this.axes, settings, base);
      const broker = this.checked(applied.broker);
      const params = resolveParams(strategy.params ?? {}, applied.params);
      equity = this.lend();
      const simulated = await simulate({
        data,
        broker,
        brokerChecked: true,
        strategy,
        startIndex: base.startIndex,
        params,
        memory: null,
        records: false,
        indicators: this.indicators,
        columns: {
          equity: equity.column,
          cash: this.cashColumn(),
          benchmark: this.benchmark(broker.initialCash),
        },
        hookTimeoutMs: base.hookTimeoutMs,
        ...(base.strategyPath !== null ? { strategyPath: base.strategyPath } : {}),
      });
      // result.json's metrics; buy-and-hold's own are not part of an outcome.
      const cash = applied.broker.initialCash;
      const source = { ...simulated, times: this.timesView(simulated.times) };
      const metrics = computeRunMetrics(source, cash, {
        benchmark: false,
        benchmarkReturns: this.benchmarkReturns(broker.initialCash, simulated.benchmark),
      });
      finishResult(result, simulated, cash, metrics);
      // The column itself (shared memory): posted from a worker it is shared, not copied.
      return {
        outcome: outcomeOf(index, settings, result),
        equity: simulated.equity,
        lease: equity.lease,
      };
    } catch (err) {
      if (equity?.lease) Atomics.store(equity.lease, 0, 0);
      // Settings that cannot run (a parameter the strategy refuses before its first bar…).
      result.status = "failed";
      result.error = { type: (err as Error).name || "Error", message: (err as Error).message };
      return { outcome: outcomeOf(index, settings, result), equity: null, lease: null };
    }
  }

  private checked(broker: BrokerConfig): BrokerConfig {
    const key = JSON.stringify(broker);
    let checked = this.brokers.get(key);
    if (checked === undefined) {
      checked = checkBroker(broker);
      this.brokers.set(key, checked);
    }
    return checked;
  }

  private benchmark(initialCash: number): Float64Array {
    let b = this.benchmarks.get(initialCash);
    if (b === undefined) {
      b = buyAndHoldEquity(this.data, initialCash, this.base.startIndex, sharedFloat64);
      this.benchmarks.set(initialCash, b);
    }
    return b;
  }

  /** Beta's benchmark part for a benchmark (the view of `initialCash`'s buy-and-hold that a run
   * ended with): the last one is kept (runs that end early, at other bars, make their own). */
  private benchmarkReturns(initialCash: number, view: Float64Array): BenchmarkReturns | null {
    const key = `${initialCash}:${view.length}`;
    if (this.beta?.key !== key) this.beta = { key, known: benchmarkReturns(view) };
    return this.beta.known;
  }

  /** The same times as `times` (a view of the data's), as the view kept for its length. */
  private timesView(times: Float64Array): Float64Array {
    let view = this.timesViews.get(times.length);
    if (view === undefined) {
      view = times;
      this.timesViews.set(times.length, view);
    }
    return view;
  }

  private cashColumn(): Float64Array {
    this.cash ??= sharedFloat64(this.data.times.length);
    return this.cash;
  }

  /** An equity column not lent now, marked lent (a new one when every kept one is). */
  private lend(): { column: Float64Array; lease: Int32Array | null } {
    for (const e of this.equityPool) {
      if (Atomics.compareExchange(e.lease, 0, 0, 1) === 0) return e;
    }
    const column = sharedFloat64(this.data.times.length);
    if (this.equityPool.length >= EQUITY_POOL) return { column, lease: null };
    const e = { column, lease: new Int32Array(new SharedArrayBuffer(4)) };
    e.lease[0] = 1;
    this.equityPool.push(e);
    return e;
  }
}

function outcomeOf(index: number, settings: Combination, r: RunResult): CombinationOutcome {
  return {
    index,
    settings,
    status: r.status,
    error: r.error,
    metrics: r.metrics,
    nullReasons: r.nullReasons,
    trades: r.trades,
    orders: r.orders,
  };
}
