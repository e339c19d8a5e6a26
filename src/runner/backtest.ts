import { checkKeys, checkSetting } from "../config/check-setting.js";
import { BACKTEST_SETTINGS } from "../config/run-settings.js";
import { alignSeries } from "../engine/align-series.js";
import type { BrokerConfig, RiskLimits } from "../engine/broker-config.js";
import { isIntraday, timeLabel } from "../engine/calendar.js";
import type { FeeFunction } from "../engine/fee-model.js";
import type { MarketData, Order, SymbolSeries } from "../engine/types.js";
import type { RunResult } from "../rundir/run-result.js";
import type { ReportedTrade } from "../rundir/write-outputs.js";
import type { Params, Strategy } from "../strategy/types.js";
import { BacktestMemory } from "./backtest-memory.js";
import { feesOption } from "./fees-option.js";
import { finishResult, roundMs, startResult } from "./finish-result.js";
import { checkBroker, checkDataWindow } from "./library-settings.js";
import { loadData } from "./load-data.js";
import { loadStrategy, strategyFrom } from "./load-strategy.js";
import { playbookFor } from "./playbook.js";
import { resolveParams } from "./resolve-params.js";
import type { DataSpec } from "./run-config.js";
import type { RunEventListener } from "./run-events.js";
import { type RunHandle, simulate } from "./simulate.js";

export interface BacktestOptions<S = unknown> {
  /** A strategy object, or the path of a strategy file (`.ts` / `.js`, default export). */
  // biome-ignore lint/suspicious/noExplicitAny: any state type is accepted; it stays the strategy's own.
  strategy: Strategy<S> | Strategy<any> | string;
  /** CSV files (`{ file, symbol? }` or paths), or series already in memory. */
  data: readonly (DataSpec | string)[] | readonly SymbolSeries[] | MarketData;
  /** Broker settings (cash, commission, slippage, shorting, risk limits...); defaults as the CLI. */
  broker?: Omit<Partial<BrokerConfig>, "risk"> & { risk?: Partial<RiskLimits> };
  /** Overrides of the strategy's `params` (values converted to the type of each default). */
  params?: Params;
  /** The window, as `YYYY-MM-DD` or ISO date-times (files only): earlier bars are warm-up. */
  from?: string;
  to?: string;
  /** Reject unsorted CSV rows instead of sorting them with a warning (files only). */
  strict?: boolean;
  tz?: string;
  /** Commission of one fill, `(units, price) => fee`, in place of the broker's commissionRate and
   * commissionFixed (see docs/library.md). */
  fees?: FeeFunction;
  /** Keep the strategy's memory (`ctx.log`, `ctx.note`, `ctx.recall`...) in this directory (made
   * if missing; a memory already there is continued). Without it the memory lives in a temporary
   * directory removed after the run. */
  memoryDir?: string;
  /** Run events as they happen (the same the CLI's renderers read). */
  onEvent?: RunEventListener;
  onStart?: (handle: RunHandle) => void;
}

/** What `backtest()` returns: the fields of result.json, and the arrays a run directory holds. */
export interface BacktestResult extends RunResult {
  /** equity.csv's columns: bar times (ms, UTC as written), equity and cash at each close, and
   * buy-and-hold equity, from the window's first bar to the last simulated one. */
  curve: { times: Float64Array; equity: Float64Array; cash: Float64Array; benchmark: Float64Array };
  /** trades.csv: closed trades, then positions open at the end (`openAtEnd`), with the entry and
   * exit times also as trades.csv writes them. */
  tradeList: BacktestTrade[];
  /** Every order placed, with its final status and reason. */
  orderList: Readonly<Order>[];
  /** The `memoryDir` option's directory when the strategy wrote memory there, else null. */
  memoryDir: string | null;
}

/** A trade of `tradeList`: its times in ms (`entryTime`, `exitTime`) and as labels. */
export interface BacktestTrade extends ReportedTrade {
  /** `entryTime` as trades.csv's entry_time writes it (`2024-03-01`, or with the minute intraday). */
  entryTimeLabel: string;
  exitTimeLabel: string;
}

/**
 * A backtest in memory: no run directory, no files written. Runs the same core as
 * `agenticbt run` (`runBacktest` writes the run directory) and computes the same metrics. The
 * memory functions (`ctx.log`, `ctx.note`, `ctx.recall`...) write a temporary directory, removed
 * after the run unless `memoryDir` keeps it; `ctx.memory.use` needs `runBacktest`.
 */
export async function backtest<S>(options: BacktestOptions<S>): Promise<BacktestResult> {
  const t0 = performance.now();
  const strategy =
    typeof options.strategy === "string"
      ? await loadStrategy(options.strategy)
      : strategyFrom(options.strategy, "backtest(): the `strategy` option is not a strategy");
  checkKeys("backtest() option", options, OPTION_KEYS);
  const broker = checkBroker(options.broker);
  const fees = feesOption(options.fees, broker);
  const window = checkDataWindow(options);
  const memoryDir = checkSetting(BACKTEST_SETTINGS.memoryDir, options.memoryDir, "memoryDir");
  const { data, startIndex, warnings, files } = inputData(options.data, window);
  const params = resolveParams(strategy.params ?? {}, options.params ?? {});
  const loadMs = performance.now() - t0;
  const intraday = isIntraday(data.times);
  const label = (i: number) => timeLabel(data.times[i] ?? 0, intraday);
  const result = startResult({
    id: "",
    name: strategy.name,
    strategy: {
      kind: "code",
      path: typeof options.strategy === "string" ? options.strategy : "",
      name: strategy.name,
      params,
    },
    dataInfo: files,
    data,
    startIndex,
    label,
    warnings,
    loadMs,
    startedAt: new Date().toISOString(),
  });
  const emit = options.onEvent;
  emit?.({
    type: "run_started",
    id: "",
    dir: "",
    strategy: strategy.name,
    kind: "code",
    symbols: [...data.symbols],
    bars: result.period.requested.bars,
    start: result.period.requested.start,
    end: result.period.requested.end,
    initialCash: broker.initialCash,
    resumedFrom: null,
  });
  for (const w of warnings) emit?.({ type: "warning", message: w });
  const memory = new BacktestMemory(
    memoryDir,
    () => playbookFor(strategy as Strategy<unknown>, params),
    data.times,
  );
  let simulated: Awaited<ReturnType<typeof simulate>>;
  try {
    simulated = await simulate({
      data,
      broker,
      strategy,
      startIndex,
      params,
      memory: memory.port,
      records: false,
      ...fees,
      ...(emit ? { onEvent: emit } : {}),
      ...(options.onStart ? { onStart: options.onStart } : {}),
      ...(typeof options.strategy === "string" ? { strategyPath: options.strategy } : {}),
    });
  } finally {
    memory.close();
  }
  finishResult(result, simulated, broker.initialCash);
  result.timings = {
    loadMs: roundMs(loadMs),
    simulateMs: roundMs(simulated.simulateMs),
    writeMs: 0,
    totalMs: roundMs(performance.now() - t0),
  };
  result.finishedAt = new Date().toISOString();
  emit?.({ type: "run_finished", result });
  return {
    ...result,
    curve: {
      times: simulated.times,
      equity: simulated.equity,
      cash: simulated.cash,
      benchmark: simulated.benchmark,
    },
    tradeList: simulated.trades.map((t) => ({
      ...t,
      entryTimeLabel: timeLabel(t.entryTime, intraday),
      exitTimeLabel: timeLabel(t.exitTime, intraday),
    })),
    orderList: simulated.orders,
    memoryDir: memory.kept,
  };
}

const OPTION_KEYS = [
  "strategy",
  "data",
  "broker",
  "params",
  "from",
  "to",
  "strict",
  "tz",
  "fees",
  ...Object.keys(BACKTEST_SETTINGS),
  "onEvent",
  "onStart",
];

/** `backtest()`'s `data` option as market data (files loaded in the window), for `sweep()` too. */
export function inputData(
  d: BacktestOptions<unknown>["data"],
  window: { from: string | null; to: string | null; strict: boolean; tz: string | null },
) {
  if (!Array.isArray(d)) {
    const data = d as MarketData;
    return { data, startIndex: 0, warnings: [] as string[], files: [] };
  }
  const list = d as readonly (DataSpec | string | SymbolSeries)[];
  if (list.length > 0 && list.every((x) => typeof x === "object" && "time" in x)) {
    return {
      data: alignSeries(list as SymbolSeries[]),
      startIndex: 0,
      warnings: [] as string[],
      files: [],
    };
  }
  const loaded = loadData({
    data: list.map((x) => (typeof x === "string" ? { file: x } : (x as DataSpec))),
    ...window,
  });
  return {
    data: loaded.data,
    startIndex: loaded.startIndex,
    warnings: loaded.warnings,
    files: loaded.dataInfo,
  };
}
