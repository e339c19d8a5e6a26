import type { BrokerConfig } from "../engine/broker-config.js";
import { isIntraday, timeLabel } from "../engine/calendar.js";
import { Simulation } from "../engine/simulation.js";
import type { EngineEvent, MarketData, Order } from "../engine/types.js";
import type { MemoryMoment } from "../memory/memory-system.js";
import { buyAndHoldEquity } from "../metrics/buy-and-hold.js";
import { BacktestContext } from "../strategy/context.js";
import type { MemoryPort, MemoryToolbox, Params, Strategy } from "../strategy/types.js";
import { BarLoop, type LoopEnd } from "./bar-loop.js";
import { HookRunner } from "./hook-runner.js";
import type { RunEventListener } from "./run-events.js";
import type { RunError } from "./run-result.js";
import { strategyLocation } from "./strategy-error.js";
import type { ReportedTrade } from "./write-outputs.js";

export interface RunHandle {
  /** Asks the loop to stop after the current bar; the run ends with status `interrupted`. */
  interrupt(): void;
}

export interface SimulateInput {
  data: MarketData;
  broker: BrokerConfig;
  strategy: Strategy<unknown>;
  /** Bars before it are history for indicators only (the `--from` warm-up). Default 0. */
  startIndex?: number;
  params?: Params;
  /** The strategy's memory; null: memory calls throw (an in-memory backtest has none). */
  memory?: MemoryPort | null;
  /** The run's memory system as `ctx.memory` tools (null: ctx.memory.use throws). */
  toolbox?: MemoryToolbox | null;
  /** Told every memory moment (fill, close, day/week/month end, run end) before the strategy. */
  onMemoryMoment?: ((moment: MemoryMoment) => void) | null;
  /** Run events as they happen; progress events are built only when this is given. */
  onEvent?: RunEventListener;
  /** Receives a handle before the first bar (Ctrl-C). */
  onStart?: (handle: RunHandle) => void;
  /** Build the orders.jsonl / decisions.jsonl lines (default true; a run directory needs them). */
  records?: boolean;
  /** The strategy's file, to point an error at its own line. */
  strategyPath?: string;
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
  /** orders.jsonl and decisions.jsonl lines. */
  orderLog: string[];
  decisionLog: string[];
  intraday: boolean;
  label: (i: number) => string;
  simulateMs: number;
}

/**
 * The one backtest core: drives the simulation, the strategy context and the hooks bar by bar, in
 * memory (no fs), and reports run events as they happen. Used by the runner (which adds the run
 * directory), the library's `backtest()`, the bench and the tests. It awaits only when a hook
 * returns a promise, so a code strategy runs at engine speed. A strategy that throws ends the
 * run `failed` with the error; nothing is thrown past here once the first bar may have run.
 */
export async function simulate(input: SimulateInput): Promise<Simulated> {
  const { data, strategy } = input;
  const startIndex = input.startIndex ?? 0;
  const emit = input.onEvent ?? noop;
  const intraday = isIntraday(data.times);
  const label = (i: number) => timeLabel(data.times[i] ?? 0, intraday);
  const pending: EngineEvent[] = [];
  const sink = (e: EngineEvent) => {
    pending.push(e);
  };
  const onMemoryMoment = input.onMemoryMoment ?? null;
  const wantsCalendar = Boolean(
    strategy.onDayEnd ||
      strategy.onWeekEnd ||
      strategy.onMonthEnd ||
      strategy.onRunEnd ||
      onMemoryMoment,
  );
  const sim = new Simulation(data, input.broker, sink, { bars: false, calendar: wantsCalendar });
  const ctx = new BacktestContext(
    data,
    sim.broker,
    input.params ?? {},
    input.memory ?? null,
    undefined,
    input.toolbox ?? null,
  );
  const hooks = new HookRunner(strategy, ctx, emit, label, input.records ?? true, onMemoryMoment);
  const cash = new Float64Array(data.times.length);
  const initialCash = input.broker.initialCash;
  const benchmark = buyAndHoldEquity(data, initialCash, startIndex);
  const loop = new BarLoop({
    sim,
    ctx,
    strategy,
    hooks,
    pending,
    cash,
    emit,
    label,
    benchmark,
    initialCash,
    progress: input.onEvent !== undefined,
  });
  input.onStart?.({ interrupt: () => loop.interrupt() });
  const t0 = performance.now();
  let status: Simulated["status"];
  let error: RunError | null = null;
  try {
    for (let i = 0; i <= startIndex && i < data.times.length; i++) ctx.advance(i);
    const state = strategy.init ? strategy.init(ctx) : undefined;
    hooks.state = state;
    status = await loop.run(startIndex, state);
  } catch (err) {
    status = "failed";
    const typed = (err as { type?: unknown }).type;
    error = {
      // A typed failure (auth, max_failed_decisions, replay_divergence…) keeps its type.
      type: typeof typed === "string" ? typed : (err as Error).name || "Error",
      message: (err as Error).message ?? String(err),
      at: loop.current < 0 ? null : label(loop.current),
      location: input.strategyPath ? strategyLocation(err, input.strategyPath) : null,
    };
  }
  const simulateMs = performance.now() - t0;
  const lastIndex = loop.lastClosed < startIndex ? startIndex - 1 : loop.lastClosed;
  const broker = sim.broker;
  // Positions still open are valued at the last close as trades for the statistics (like
  // backtesting.py's finalize_trades); they are flagged and no exit fill or commission is invented.
  const open =
    lastIndex >= startIndex
      ? broker.portfolio.openLotsAsTrades(lastIndex, data.times[lastIndex] ?? 0)
      : [];
  const trades = hooks.trades;
  for (const t of open) trades.push({ ...t, openAtEnd: true });
  let exposedBars = 0;
  for (let i = startIndex; i <= lastIndex; i++) exposedBars += sim.exposed[i] as number;
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
    intraday,
    label,
    simulateMs,
  };
  if (ctx.stopRequest) out.stopReason = ctx.stopRequest.reason;
  return out;
}

const noop = () => {};
