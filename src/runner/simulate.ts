import type { BrokerConfig } from "../engine/broker-config.js";
import { isIntraday, timeLabel } from "../engine/calendar.js";
import type { FeeModel } from "../engine/fee-model.js";
import type { FillModel } from "../engine/fill-model.js";
import { Simulation } from "../engine/simulation.js";
import type { EngineEvent, MarketData, Order } from "../engine/types.js";
import { isEnvironmentError } from "../errors/environment-error.js";
import type { IndicatorCache } from "../indicators/indicator-cache.js";
import type { IndicatorUse } from "../indicators/indicator-use.js";
import type { MemoryMoment } from "../memory/memory-system.js";
import { buyAndHoldEquity } from "../metrics/buy-and-hold.js";
import type { BarView, StateOutcome } from "../rundir/checkpoint.js";
import type { EquityColumns } from "../rundir/equity-csv.js";
import type { RecordLog } from "../rundir/record-log.js";
import type { RunError } from "../rundir/run-result.js";
import type { SettledCounts } from "../rundir/state-files.js";
import type { ReportedTrade } from "../rundir/write-outputs.js";
import { BacktestContext } from "../strategy/context.js";
import type { MemoryPort, MemoryToolbox, Params, Strategy } from "../strategy/types.js";
import { sharedFloat64 } from "../util/shared-float64.js";
import { BarLoop, type LoopEnd } from "./bar-loop.js";
import { type DecisionListener, HookRunner } from "./hook-runner.js";
import { checkBroker } from "./library-settings.js";
import type { RunEventListener } from "./run-events.js";
import { encodeRunState, type RunRestore, reviveStrategyState } from "./run-state.js";
import { strategyLocation } from "./strategy-error.js";

export interface RunHandle {
  /** Asks the loop to stop after the current bar; the run ends with status `interrupted`. */
  interrupt(): void;
  /**
   * A run directory's run only: ends the run at once, synchronously (a second Ctrl-C). Its
   * result.json says `interrupted`; the caller exits the process next.
   */
  abort?(signal: string): void;
}

export interface SimulateInput {
  data: MarketData;
  broker: BrokerConfig;
  /** The commission of each fill; default the broker's rate and fixed fee. */
  fees?: FeeModel;
  /** Where and at what price orders fill; default the rules of docs/fill-conventions.md. */
  fills?: FillModel;
  strategy: Strategy<unknown>;
  /** Bars before it are history for indicators only (the `--from` warm-up). Default 0. */
  startIndex?: number;
  params?: Params;
  /** The strategy's memory; null: memory calls throw (an in-memory backtest has none). */
  memory?: MemoryPort | null;
  /** The run's memory system as `ctx.memory` tools (null: ctx.memory.use throws). */
  toolbox?: MemoryToolbox | null;
  /** Told every memory moment (fill, close, day/week/month end, run end) before the strategy. */
  onMemoryMoment?: ((moment: MemoryMoment) => void | Promise<void>) | null;
  /** Told each recorded decision (a hook that placed or cancelled orders, wrote memory,
   * recalled or annotated), after it: the decision traces (`--recall-sources traces`). */
  onDecision?: DecisionListener | null;
  /** Run events as they happen; progress events are built only when this is given. */
  onEvent?: RunEventListener;
  /** Receives a handle before the first bar (Ctrl-C). */
  onStart?: (handle: RunHandle) => void;
  /**
   * Told before the first bar the columns equity.csv is made of, from the window's first bar to
   * the data's last, in shared memory: times and benchmark are final, equity and cash fill as bars
   * close (`onSlice` says how far).
   */
  onColumns?: (columns: EquityColumns) => void;
  /** Told at each turn of the event loop the last bar whose close is processed: the columns' rows
   * up to it are final. */
  onSlice?: (lastClosed: number) => void;
  /** Indicators computed already over this same `data` (a sweep's worker keeps one across its
   * combinations); default a new cache for this run. */
  indicators?: IndicatorCache;
  /**
   * Columns to fill instead of new ones (a sweep's thread reuses them across its combinations
   * rather than allocate three per run): equity and cash one per bar of `data` (zeroed here), and
   * the buy-and-hold equity from `startIndex` that `buyAndHoldEquity` gives for this broker's
   * initial cash (read only).
   */
  columns?: { equity: Float64Array; cash: Float64Array; benchmark: Float64Array };
  /** The broker is `checkBroker`'s output already (a sweep checks each distinct one once). */
  brokerChecked?: boolean;
  /** Build the orders.jsonl / decisions.jsonl lines (default true; a run directory needs them). */
  records?: boolean;
  /** The strategy's file, to point an error at its own line. */
  strategyPath?: string;
  /** Told after each bar, hooks settled: saves (or, resuming, verifies) the run's checkpoint. */
  checkpoint?: {
    afterBar(i: number, view: BarView): void;
    /** A restored run's record lines so far, as bytes, for the digests (see Checkpointer). */
    seedLines?(orders: Uint8Array, orderLines: number, decisions: Uint8Array, n: number): void;
  } | null;
  /** How long a hook's promise may stay pending before the run fails (null: no limit). */
  hookTimeoutMs?: number | null;
  /** A resume's saved state: the run goes on from the bar after it (its checkpoint verifies the
   * restored state first), and the strategy's `init` is not called again. */
  restore?: RunRestore | null;
}

/** Everything a run produced, in memory: the arrays behind equity.csv, trades, orders, records. */
export interface Simulated {
  status: Exclude<LoopEnd, never> | "failed";
  error: RunError | null;
  stopReason?: string;
  startIndex: number;
  /** The last bar whose close was processed (startIndex - 1 when none was). */
  lastIndex: number;
  /** Window → last closed bar: times, equity and cash at each close, buy-and-hold equity. */
  times: Float64Array;
  equity: Float64Array;
  cash: Float64Array;
  benchmark: Float64Array;
  /** Bars with a position open at the close. */
  exposedBars: number;
  /** Closed trades, then the positions still open valued at the last close (`openAtEnd`). */
  trades: ReportedTrade[];
  orders: Order[];
  commissions: number;
  slippage: number;
  /** orders.jsonl and decisions.jsonl lines (serialized as they are read). */
  orderLog: RecordLog;
  decisionLog: RecordLog;
  /** orderLog's lines of rejected orders, by index. */
  rejectedOrders: number[];
  /** The indicators the strategy created through ctx.indicator. */
  indicators: IndicatorUse[];
  intraday: boolean;
  label: (i: number) => string;
  simulateMs: number;
}

/** The engine underneath, for tests and tools that drive the broker themselves. */
export interface EngineTap {
  /** Every engine event as the engine emits it (day, week and month ends included). */
  onEvent?: (e: EngineEvent) => void;
  /** The simulation, before the first bar. */
  onReady?: (sim: Simulation) => void;
}

/**
 * The one backtest core: drives the simulation, the strategy context and the hooks bar by bar, in
 * memory (no fs), and reports run events as they happen. Used by the runner (which adds the run
 * directory), the library's `backtest()`, the bench and the tests. It awaits only when a hook
 * returns a promise, so a code strategy runs at engine speed. A strategy that throws ends the
 * run `failed` with the error; nothing is thrown past here once the first bar may have run.
 */
export async function simulate(input: SimulateInput): Promise<Simulated> {
  // The library's entry to the core: its broker is checked as the command line's is.
  const broker = input.brokerChecked ? input.broker : checkBroker(input.broker);
  const run = new CoreRun({ ...input, broker });
  const t0 = performance.now();
  let status: Simulated["status"];
  let error: RunError | null = null;
  try {
    const state = run.init();
    status = await run.loop.run(run.startIndex, state, run.from);
  } catch (err) {
    status = "failed";
    error = run.failure(err);
  }
  return run.finish(status, error, performance.now() - t0);
}

/**
 * The same core without ever yielding, for a strategy whose hooks never return a promise (the
 * engine tests). Unlike `simulate()` an error is thrown as it is, with its own class.
 */
export function simulateSync(input: SimulateInput, engine: EngineTap = {}): Simulated {
  if (input.restore) throw new Error("simulateSync does not resume a run");
  const run = new CoreRun(input, engine);
  const t0 = performance.now();
  const status = run.loop.runSync(run.startIndex, run.init());
  return run.finish(status, null, performance.now() - t0);
}

/** One run's parts, wired once for both drivers. */
class CoreRun {
  readonly startIndex: number;
  readonly loop: BarLoop;
  private readonly sim: Simulation;
  private readonly ctx: BacktestContext;
  private readonly hooks: HookRunner;
  private readonly cash: Float64Array;
  private readonly benchmark: Float64Array;
  private readonly intraday: boolean;
  private readonly label: (i: number) => string;

  constructor(
    private readonly input: SimulateInput,
    engine: EngineTap = {},
  ) {
    const { data, strategy } = input;
    const startIndex = input.startIndex ?? 0;
    this.startIndex = startIndex;
    const emit = input.onEvent ?? noop;
    const intraday = isIntraday(data.times);
    this.intraday = intraday;
    const label = (i: number) => timeLabel(data.times[i] ?? 0, intraday);
    this.label = label;
    const pending: EngineEvent[] = [];
    const tap = engine.onEvent;
    const sink = tap
      ? (e: EngineEvent) => {
          tap(e);
          pending.push(e);
        }
      : (e: EngineEvent) => {
          pending.push(e);
        };
    const onMemoryMoment = input.onMemoryMoment ?? null;
    const wantsCalendar = Boolean(
      tap ||
        strategy.onDayEnd ||
        strategy.onWeekEnd ||
        strategy.onMonthEnd ||
        strategy.onRunEnd ||
        onMemoryMoment,
    );
    // The equity, cash and buy-and-hold curves live in shared memory: equity.csv's worker thread
    // reads them in place while the run fills them (equity-stream.ts).
    const columns = input.columns;
    if (columns) {
      columns.equity.fill(0);
      columns.cash.fill(0);
    }
    const sim = new Simulation(
      data,
      input.broker,
      sink,
      { bars: false, calendar: wantsCalendar },
      columns ? columns.equity : sharedFloat64(data.times.length),
      {
        ...(input.fees ? { fees: input.fees } : {}),
        ...(input.fills ? { fills: input.fills } : {}),
      },
    );
    this.sim = sim;
    const ctx = new BacktestContext(
      data,
      sim.broker,
      input.params ?? {},
      input.memory ?? null,
      input.indicators,
      input.toolbox ?? null,
    );
    this.ctx = ctx;
    this.hooks = new HookRunner(
      strategy,
      ctx,
      emit,
      label,
      input.records ?? true,
      onMemoryMoment,
      input.onDecision ?? null,
    );
    this.cash = columns ? columns.cash : sharedFloat64(data.times.length);
    const initialCash = input.broker.initialCash;
    this.benchmark = columns
      ? columns.benchmark
      : buyAndHoldEquity(data, initialCash, startIndex, sharedFloat64);
    const checkpoint = input.checkpoint ?? null;
    const view: BarView = {
      sim,
      hooks: this.hooks,
      pending,
      cash: this.cash,
      startIndex,
      settled: () => ({
        orders: sim.broker.orders,
        count: sim.broker.settledCount(),
        trades: this.hooks.trades,
        rejected: this.hooks.rejectedOrders,
      }),
      snapshot: (i, settled) => this.snapshot(i, settled),
    };
    this.view = view;
    this.loop = new BarLoop({
      sim,
      ctx,
      strategy,
      hooks: this.hooks,
      pending,
      cash: this.cash,
      emit,
      label,
      benchmark: this.benchmark,
      initialCash,
      progress: input.onEvent !== undefined,
      afterBar: checkpoint ? (i) => checkpoint.afterBar(i, view) : undefined,
      onSlice: input.onSlice,
      hookTimeoutMs: input.hookTimeoutMs ?? null,
    });
    input.onColumns?.({
      times: data.times.subarray(startIndex),
      equity: sim.equity.subarray(startIndex),
      cash: this.cash.subarray(startIndex),
      benchmark: this.benchmark,
      intraday,
    });
    engine.onReady?.(sim);
    input.onStart?.({ interrupt: () => this.loop.interrupt() });
  }

  private readonly view: BarView;

  /** The first bar to simulate: the window's first, or the one after a restored state's. */
  get from(): number {
    const restore = this.input.restore ?? null;
    return restore !== null ? restore.state.bar + 1 : this.startIndex;
  }

  /** The context up to the first bar, then the strategy's `init`: its state. A resume's restored
   * state instead, verified by the checkpoint it was saved with. */
  init(): unknown {
    const { data, strategy } = this.input;
    const restore = this.input.restore ?? null;
    if (restore !== null) return this.restore(restore);
    for (let i = 0; i <= this.startIndex && i < data.times.length; i++) this.ctx.advance(i);
    const state = strategy.init ? strategy.init(this.ctx) : undefined;
    this.hooks.state = state;
    return state;
  }

  private restore(restore: RunRestore): unknown {
    const { startIndex, sim, ctx, hooks } = this;
    const r = restore.state;
    if (r.bar < startIndex || r.bar >= sim.length) {
      throw new RangeError(`a saved state at bar ${r.bar} is outside the run`);
    }
    for (let i = 0; i <= r.bar; i++) ctx.advance(i);
    if (restore.equity.length !== r.bar + 1 - startIndex) {
      throw new RangeError(`a saved state at bar ${r.bar} with ${restore.equity.length} closes`);
    }
    const { settled } = restore;
    if (settled.orders.length !== r.settled.orders) {
      throw new RangeError(
        `a saved state with ${settled.orders.length} of ${r.settled.orders} settled orders`,
      );
    }
    const broker = { ...r.broker, orders: settled.orders.concat(r.broker.orders) };
    sim.restore(broker, r.endsClosed, restore.equity, restore.exposed, startIndex);
    this.cash.set(restore.cash, startIndex);
    hooks.restore(restore.orderLines, restore.decisionLines, settled.rejected, settled.trades);
    ctx.stopRequest = r.stopRequest;
    const state = reviveStrategyState(r, ctx);
    hooks.state = state;
    // The checkpoint saved with this state compares it field by field (and its digests go on).
    const checkpoint = this.input.checkpoint;
    checkpoint?.seedLines?.(
      restore.orderBytes,
      restore.orderLines.length,
      restore.decisionBytes,
      restore.decisionLines.length,
    );
    checkpoint?.afterBar(r.bar, this.view);
    return state;
  }

  /** The state after bar `i` as a resume would restore it, but the settled records the state
   * files hold, or why it cannot be saved. */
  private snapshot(i: number, settled: SettledCounts): StateOutcome {
    const { sim, ctx, hooks } = this;
    const broker = sim.broker.exportState();
    return encodeRunState(
      {
        bar: i,
        broker: { ...broker, orders: broker.orders.slice(settled.orders) },
        settled,
        endsClosed: sim.endsClosed,
        stopRequest: ctx.stopRequest,
        strategyState: hooks.state,
      },
      ctx,
    );
  }

  failure(err: unknown): RunError {
    const typed = (err as { type?: unknown }).type;
    const loop = this.loop;
    return {
      // A typed failure (auth, max_failed_decisions, replay_divergence…) keeps its type.
      type: typeof typed === "string" ? typed : (err as Error).name || "Error",
      message: (err as Error).message ?? String(err),
      at: loop.current < 0 ? null : this.label(loop.current),
      // A broken install reaches the strategy through its memory call, but is not its fault.
      location:
        this.input.strategyPath && !isEnvironmentError(err)
          ? strategyLocation(err, this.input.strategyPath)
          : null,
    };
  }

  finish(status: Simulated["status"], error: RunError | null, simulateMs: number): Simulated {
    const { data } = this.input;
    const { startIndex, sim, cash, benchmark, hooks } = this;
    const lastIndex = this.loop.lastClosed < startIndex ? startIndex - 1 : this.loop.lastClosed;
    const broker = sim.broker;
    // Positions still open are valued at the last close as trades for the statistics (like
    // backtesting.py's finalize_trades); they are flagged and no exit fill or commission is invented.
    const open =
      lastIndex >= startIndex
        ? broker.portfolio.openLotsAsTrades(lastIndex, data.times[lastIndex] ?? 0)
        : [];
    const trades = hooks.trades;
    for (const t of open) trades.push({ ...t, openAtEnd: true });
    const exposedBars = countSet(sim.exposed, startIndex, lastIndex);
    const out: Simulated = {
      status,
      error,
      startIndex,
      lastIndex,
      times: data.times.subarray(startIndex, lastIndex + 1),
      equity: sim.equity.subarray(startIndex, lastIndex + 1),
      cash: cash.subarray(startIndex, lastIndex + 1),
      benchmark: benchmark.subarray(0, lastIndex + 1 - startIndex),
      exposedBars,
      trades,
      orders: broker.orders,
      commissions: broker.portfolio.totalCommission,
      slippage: broker.portfolio.totalSlippage,
      orderLog: hooks.orderLog,
      decisionLog: hooks.decisionLog,
      rejectedOrders: hooks.rejectedOrders,
      indicators: this.ctx.indicatorsUsed(),
      intraday: this.intraday,
      label: this.label,
      simulateMs,
    };
    if (this.ctx.stopRequest) out.stopReason = this.ctx.stopRequest.reason;
    return out;
  }
}

const noop = () => {};

/** How many of `flags[from..to]` are 1. A function of its own so that the optimizer, compiling
 * the loop while the first run finishes, does not cut `finish` short of its later feedback. */
function countSet(flags: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let i = from; i <= to; i++) n += flags[i] as number;
  return n;
}
