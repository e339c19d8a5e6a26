import path from "node:path";
import { isIntraday, timeLabel } from "../engine/calendar.js";
import { Simulation } from "../engine/simulation.js";
import type { EngineEvent, MarketData, Order } from "../engine/types.js";
import { MemoryWorkspace } from "../memory/workspace.js";
import { buyAndHoldEquity } from "../metrics/buy-and-hold.js";
import { computeBenchmarkMetrics, computeMetrics } from "../metrics/compute-metrics.js";
import { BacktestContext, type ContextActivity } from "../strategy/context.js";
import type { Strategy } from "../strategy/types.js";
import { writeJsonAtomic } from "../util/atomic-write.js";
import { VERSION } from "../version.js";
import { loadData } from "./load-data.js";
import { loadStrategy } from "./load-strategy.js";
import { memoryPort } from "./memory-port.js";
import { resolveParams } from "./resolve-params.js";
import { RESULT_SCHEMA_VERSION, type RunConfig } from "./run-config.js";
import type { RunEventListener } from "./run-events.js";
import { createRunDir } from "./run-id.js";
import type { RunResult, RunStatus } from "./run-result.js";
import { equityCsv, type ReportedTrade, tradesCsv, writeText } from "./write-outputs.js";

export interface RunHandle {
  /** Asks the loop to stop after the current bar; the run is written with status `interrupted`. */
  interrupt(): void;
}

export interface RunOptions {
  onEvent?: RunEventListener;
  /** Receives a handle as soon as the run exists (for Ctrl-C). */
  onStart?: (handle: RunHandle) => void;
}

/**
 * The one loop of a backtest. Bad data or a bad strategy throw before any run directory exists;
 * once the directory exists, every outcome (completed, failed, interrupted) ends in a complete
 * result.json, and every file is written atomically.
 */
export async function runBacktest(config: RunConfig, options: RunOptions = {}): Promise<RunResult> {
  const t0 = performance.now();
  const emit = options.onEvent ?? (() => {});
  const loaded = loadData(config);
  const strategy = await loadStrategy(config.strategyPath);
  const params = resolveParams(strategy.params ?? {}, config.params);
  const { data, startIndex, dataInfo, warnings } = loaded;
  const loadMs = performance.now() - t0;

  const name = config.name ?? strategy.name;
  const { id, dir } = createRunDir(config.runsRoot, name);
  const intraday = isIntraday(data.times);
  const label = (i: number) => timeLabel(data.times[i] ?? 0, intraday);
  const startedAt = new Date().toISOString();
  const result: RunResult = {
    schemaVersion: RESULT_SCHEMA_VERSION,
    id,
    name,
    status: "running",
    error: null,
    strategy: { kind: "code", path: config.strategyPath, name: strategy.name, params },
    data: dataInfo,
    period: {
      start: data.times.length > startIndex ? label(startIndex) : null,
      end: data.times.length > 0 ? label(data.times.length - 1) : null,
      bars: data.times.length - startIndex,
      warmupBars: startIndex,
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
    trades: { closed: 0, openAtEnd: 0 },
    orders: { submitted: 0, filled: 0, rejected: 0, cancelled: 0, expired: 0, working: 0 },
    memory: null,
    warnings,
    timings: { loadMs, simulateMs: 0, writeMs: 0, totalMs: 0 },
    startedAt,
    finishedAt: null,
    agenticbt: { version: VERSION, node: process.version },
  };
  writeJsonAtomic(path.join(dir, "config.json"), { id, ...config, params });
  writeJsonAtomic(path.join(dir, "result.json"), result);
  emit({
    type: "run_started",
    id,
    dir,
    strategy: strategy.name,
    symbols: [...data.symbols],
    bars: result.period.bars,
  });
  for (const w of warnings) emit({ type: "warning", message: w });

  const workspace = new MemoryWorkspace({ dir, runId: id });
  workspace.init(playbookFor(strategy, params));

  let interrupted = false;
  options.onStart?.({
    interrupt: () => {
      interrupted = true;
    },
  });

  const orderLog: string[] = [];
  const decisionLog: string[] = [];
  const trades: ReportedTrade[] = [];
  const pending: EngineEvent[] = [];
  const sink = (e: EngineEvent) => {
    pending.push(e);
  };
  const wantsCalendar = Boolean(strategy.onDayEnd || strategy.onWeekEnd || strategy.onMonthEnd);
  const sim = new Simulation(data, config.broker, sink, { bars: false, calendar: wantsCalendar });
  const ctx = new BacktestContext(data, sim.broker, params, memoryPort(workspace, dir));
  const cash = new Float64Array(data.times.length);
  let status: RunStatus = "completed";
  let simulateMs = 0;
  let lastIndex = startIndex - 1;
  const t1 = performance.now();
  try {
    for (let i = 0; i < startIndex; i++) ctx.advance(i);
    if (startIndex < data.times.length) ctx.advance(startIndex);
    const state = strategy.init ? strategy.init(ctx) : undefined;
    const total = data.times.length - startIndex;
    const progressEvery = Math.max(1, Math.floor(total / 100));
    const hooks = new HookRunner(strategy, ctx, state, orderLog, decisionLog, trades, emit, label);
    for (let i = startIndex; i < data.times.length; i++) {
      if (interrupted) {
        status = "interrupted";
        break;
      }
      ctx.advance(i);
      sim.openBar(i);
      // Awaiting only when there is something to await keeps synchronous strategies fast.
      if (pending.length) await hooks.drain(pending, i);
      ctx.resetActivity();
      const r = strategy.onBar(ctx, state);
      if (r instanceof Promise) await r;
      hooks.record(i, "bar", ctx.resetActivity());
      if (pending.length) await hooks.drain(pending, i);
      sim.closeBar(i);
      cash[i] = sim.broker.portfolio.cash;
      lastIndex = i;
      if (pending.length) await hooks.drain(pending, i);
      // Let signals (Ctrl-C) and progress output through on long synchronous runs.
      if ((i & 0x3fff) === 0x3fff) await new Promise<void>((resolve) => setImmediate(resolve));
      const done = i - startIndex + 1;
      if (done % progressEvery === 0 || done === total) {
        emit({ type: "progress", done, total, time: label(i), equity: sim.equity[i] as number });
      }
    }
    sim.finish(data.times.length - 1);
    pending.length = 0;
  } catch (err) {
    status = "failed";
    result.error = {
      type: (err as Error).name || "Error",
      message: (err as Error).message ?? String(err),
    };
  }
  simulateMs = performance.now() - t1;

  const t2 = performance.now();
  const bench = buyAndHoldEquity(data, config.broker.initialCash, startIndex).subarray(
    0,
    lastIndex + 1 - startIndex,
  );
  finishResult(result, sim, data, startIndex, lastIndex, trades, config.broker.initialCash, bench);
  result.memory = { ...workspace.stats() };
  const times = data.times.subarray(startIndex, lastIndex + 1);
  const equity = sim.equity.subarray(startIndex, lastIndex + 1);
  writeText(
    path.join(dir, "equity.csv"),
    equityCsv(times, equity, cash.subarray(startIndex, lastIndex + 1), bench, intraday),
  );
  writeText(path.join(dir, "trades.csv"), tradesCsv(trades, intraday));
  writeText(path.join(dir, "orders.jsonl"), orderLog.length ? `${orderLog.join("\n")}\n` : "");
  writeText(
    path.join(dir, "decisions.jsonl"),
    decisionLog.length ? `${decisionLog.join("\n")}\n` : "",
  );
  result.status = status;
  result.timings = {
    loadMs: round(loadMs),
    simulateMs: round(simulateMs),
    writeMs: round(performance.now() - t2),
    totalMs: round(performance.now() - t0),
  };
  result.finishedAt = new Date().toISOString();
  writeJsonAtomic(path.join(dir, "result.json"), result);
  emit({ type: "run_finished", result });
  return result;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

function finishResult(
  result: RunResult,
  sim: Simulation,
  data: MarketData,
  startIndex: number,
  lastIndex: number,
  trades: ReportedTrade[],
  initialCash: number,
  benchmark: Float64Array,
): void {
  const broker = sim.broker;
  // Positions still open are valued at the last close as trades for the statistics (like
  // backtesting.py's finalize_trades); they are flagged and no exit fill or commission is invented.
  const openTrades = broker.portfolio.openLotsAsTrades(lastIndex, data.times[lastIndex] ?? 0);
  const reported: ReportedTrade[] = [
    ...trades,
    ...openTrades.map((t) => ({ ...t, openAtEnd: true })),
  ];
  trades.splice(0, trades.length, ...reported);
  const counts = { submitted: 0, filled: 0, rejected: 0, cancelled: 0, expired: 0, working: 0 };
  for (const o of broker.orders) {
    counts.submitted++;
    if (o.status === "filled") counts.filled++;
    else if (o.status === "rejected") counts.rejected++;
    else if (o.status === "cancelled") counts.cancelled++;
    else if (o.status === "expired") counts.expired++;
    else counts.working++;
  }
  result.orders = counts;
  result.trades = { closed: reported.length - openTrades.length, openAtEnd: openTrades.length };
  if (lastIndex < startIndex) {
    result.nullReasons = { metrics: "no bar was simulated" };
    return;
  }
  const times = data.times.subarray(startIndex, lastIndex + 1);
  const equity = sim.equity.subarray(startIndex, lastIndex + 1);
  let exposedBars = 0;
  for (let i = startIndex; i <= lastIndex; i++) exposedBars += sim.exposed[i] as number;
  const m = computeMetrics({
    times,
    equity,
    initialCash,
    trades: reported,
    benchmark,
    exposedBars,
    commissions: broker.portfolio.totalCommission,
    slippage: broker.portfolio.totalSlippage,
  });
  result.metrics = m.metrics;
  result.nullReasons = m.nullReasons;
  const b = computeBenchmarkMetrics(times, benchmark);
  result.benchmark.metrics = b.metrics;
  result.benchmark.nullReasons = b.nullReasons;
}

function playbookFor(strategy: Strategy<unknown>, params: Record<string, unknown>): string {
  const lines = [`# Playbook: ${strategy.name}`, ""];
  if (strategy.description) lines.push(strategy.description.trim(), "");
  const keys = Object.keys(params);
  if (keys.length) {
    lines.push("## Parameters", "");
    for (const k of keys) lines.push(`- ${k}: ${String(params[k])}`);
    lines.push("");
  }
  return `${lines.join("\n")}`;
}

/** Runs the strategy's hooks for engine events and writes the order and decision records. */
class HookRunner {
  constructor(
    private readonly strategy: Strategy<unknown>,
    private readonly ctx: BacktestContext,
    private readonly state: unknown,
    private readonly orderLog: string[],
    private readonly decisionLog: string[],
    private readonly trades: ReportedTrade[],
    private readonly emit: RunEventListener,
    private readonly label: (i: number) => string,
  ) {}

  async drain(pending: EngineEvent[], index: number): Promise<void> {
    // Hooks may place orders, whose events land in `pending` too: process until empty.
    for (let k = 0; k < pending.length; k++) {
      const e = pending[k] as EngineEvent;
      await this.handle(e, index);
    }
    pending.length = 0;
  }

  private async handle(e: EngineEvent, index: number): Promise<void> {
    const s = this.strategy;
    const ctx = this.ctx;
    switch (e.type) {
      case "order_accepted":
      case "order_rejected":
      case "order_cancelled":
      case "order_expired":
        this.orderLog.push(JSON.stringify(orderRecord(e, this.label(e.index))));
        return;
      case "fill":
        this.orderLog.push(
          JSON.stringify({ event: "fill", ...e.fill, time: this.label(e.index), bar: e.index }),
        );
        this.emit({ type: "fill", time: this.label(e.index), fill: e.fill });
        if (s.onFill) await this.hook("fill", index, () => s.onFill?.(ctx, e.fill, this.state));
        return;
      case "trade_closed":
        this.trades.push({ ...e.trade, openAtEnd: false });
        this.emit({ type: "trade_closed", time: this.label(e.index), trade: e.trade });
        if (s.onTradeClosed)
          await this.hook("trade_closed", index, () => s.onTradeClosed?.(ctx, e.trade, this.state));
        return;
      case "day_end":
        if (s.onDayEnd)
          await this.hook("day_end", index, () => s.onDayEnd?.(ctx, e.key, this.state));
        return;
      case "week_end":
        if (s.onWeekEnd)
          await this.hook("week_end", index, () => s.onWeekEnd?.(ctx, e.key, this.state));
        return;
      case "month_end":
        if (s.onMonthEnd)
          await this.hook("month_end", index, () => s.onMonthEnd?.(ctx, e.key, this.state));
        return;
      default:
        return;
    }
  }

  private async hook(kind: string, index: number, call: () => void | Promise<void>): Promise<void> {
    this.ctx.resetActivity();
    const r = call();
    if (r instanceof Promise) await r;
    this.record(index, kind, this.ctx.resetActivity());
  }

  /** One decisions.jsonl line per decision or hook that did something (orders, memory, recall). */
  record(index: number, kind: string, a: ContextActivity): void {
    if (!a.orders.length && !a.cancels.length && !a.memory.length && !a.recalls.length) return;
    this.decisionLog.push(
      JSON.stringify({
        time: this.label(index),
        bar: index,
        kind,
        orders: a.orders.map(orderSummary),
        cancels: a.cancels,
        memory: a.memory,
        recalls: a.recalls,
      }),
    );
  }
}

function orderSummary(o: Order) {
  return {
    id: o.id,
    symbol: o.symbol,
    side: o.side,
    type: o.type,
    size: o.size,
    limitPrice: o.limitPrice,
    stopPrice: o.stopPrice,
    stopLoss: o.stopLoss,
    takeProfit: o.takeProfit,
    tif: o.tif,
    status: o.status,
    reason: o.reason,
    tag: o.tag,
  };
}

function orderRecord(e: Extract<EngineEvent, { order: unknown }>, time: string) {
  const event = e.type.replace("order_", "");
  // The order object may have moved on by the time the event is written: the event is the status.
  return {
    event,
    time,
    bar: e.index,
    ...orderSummary(e.order),
    status: event,
    reason: "reason" in e ? e.reason : e.order.reason,
    parentId: e.order.parentId,
    ocoId: e.order.ocoId,
  };
}
