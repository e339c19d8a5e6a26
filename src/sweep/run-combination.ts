import type { BrokerConfig } from "../config/run-settings.js";
import type { MarketData } from "../engine/types.js";
import { IndicatorCache } from "../indicators/indicator-cache.js";
import type { Metrics } from "../metrics/types.js";
import type { RunError, RunResult, RunStatus } from "../rundir/run-result.js";
import { finishResult, startResult } from "../runner/finish-result.js";
import { resolveParams } from "../runner/resolve-params.js";
import { simulate } from "../runner/simulate.js";
import type { Params, Strategy } from "../strategy/types.js";
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
}

/**
 * Runs combinations in memory through the same core as `agenticbt run` (`simulate`, then the
 * same `finishResult`), so each one's metrics are those of `run` with its settings. One per
 * thread: the indicators are computed once per (symbol, indicator, params) across combinations.
 */
export class CombinationRunner {
  private indicators = new IndicatorCache();

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
    try {
      const applied = applyCombination(this.axes, settings, base);
      const params = resolveParams(strategy.params ?? {}, applied.params);
      const simulated = await simulate({
        data,
        broker: applied.broker,
        strategy,
        startIndex: base.startIndex,
        params,
        memory: null,
        records: false,
        indicators: this.indicators,
        hookTimeoutMs: base.hookTimeoutMs,
        ...(base.strategyPath !== null ? { strategyPath: base.strategyPath } : {}),
      });
      finishResult(result, simulated, applied.broker.initialCash);
      // The column itself (shared memory): posted from a worker it is shared, not copied.
      return { outcome: outcomeOf(index, settings, result), equity: simulated.equity };
    } catch (err) {
      // Settings that cannot run (a parameter the strategy refuses before its first bar…).
      result.status = "failed";
      result.error = { type: (err as Error).name || "Error", message: (err as Error).message };
      return { outcome: outcomeOf(index, settings, result), equity: null };
    }
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
