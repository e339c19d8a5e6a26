import type {
  AccountSnapshot,
  Bar,
  ClosedTrade,
  Fill,
  Millis,
  Order,
  OrderRequest,
  TimeInForce,
} from "../engine/types.js";

export type ParamValue = number | string | boolean;
export type Params = Record<string, ParamValue>;

/** A recall hit: where in the run's memory, and how well it matched. */
export interface Citation {
  /** Relative to the run directory, with "/" separators. */
  path: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  snippet: string;
  /** In (0, 1]. */
  score: number;
  /** The file kind for files; the layer (short, mid, long, reflection) for layered; a store
   * entry for persistent. */
  source:
    | "journal"
    | "note"
    | "review"
    | "playbook"
    | "report"
    | "trace"
    | "short"
    | "mid"
    | "long"
    | "reflection"
    | "persistent";
}

/**
 * A recall's answer and the memory write sequence it searched (writes 1…seq visible), recorded in
 * decisions.jsonl so `recall --as-of` can answer exactly as this recall did.
 */
export interface RecallAnswer {
  citations: Citation[];
  seq: number;
}

/** The memory a strategy may use; the runner binds it to the run directory. */
export interface MemoryPort {
  log(content: string, at: Millis): void;
  note(key: string, content: string, at: Millis): void;
  review(period: "week" | "month", periodKey: string, content: string, at: Millis): void;
  readNote(key: string): string | null;
  /** BM25 recall as of `asOf` (synchronous; refused when the run recalls with embeddings). */
  recall(query: string, limit: number, asOf: Millis): RecallAnswer;
  /** Recall as of `asOf`, hybrid when the run has embeddings configured. */
  recallAsync(query: string, limit: number, asOf: Millis): Promise<RecallAnswer>;
}

/** What one memory tool call did, for the decision's line in decisions.jsonl. */
export interface MemoryActivityRecord {
  memory?: { tool: string; key?: string; chars: number };
  recall?: RecallAnswer & { query: string };
}

/**
 * The run's memory system as tools (`--memory <name>`), bound by the runner: the same tools, with
 * the same argument checks, that the LLM agent gets.
 */
export interface MemoryToolbox {
  readonly system: string;
  readonly tools: readonly string[];
  /** Validates `args` (an Error tells what to fix) and runs the tool at this bar. */
  call(
    tool: string,
    args: unknown,
    at: { time: Millis; index: number; label: string },
  ):
    | { result: unknown; record?: MemoryActivityRecord }
    | Promise<{ result: unknown; record?: MemoryActivityRecord }>;
}

/** `ctx.memory`: the run's memory system, whatever `--memory` chose. */
export interface MemoryHandle {
  /** The system's name (`files`, `layered`…). */
  readonly system: string;
  /** Its tools' names (e.g. memory_log, memory_note, memory_recall for files). */
  readonly tools: readonly string[];
  /** Runs one tool as the agent would (`use("memory_store", { content: "…", importance: 70 })`):
   * its result, or a promise of it for a tool that awaits (recall with embeddings). */
  use(tool: string, args?: Record<string, unknown>): unknown;
}

/** A live indicator: reads the value at the current bar each time it is asked. */
export interface IndicatorView {
  /** Value at the current bar of its symbol, or null during warm-up. */
  readonly value: number | null;
  /** Value `ago` bars back (0 = current), or null. Never reads past the current bar. */
  at(ago: number): number | null;
}

/** Options of `buy` / `sell`, checked strictly: exactly one of `qty` and `fraction` is required
 * (no size is an error, never "all in"), an unknown key or an out-of-range number throws a
 * StrategyUsageError. */
export interface OrderOptions {
  symbol?: string;
  /** Units, > 0 (whole unless the run has --fractional). */
  qty?: number;
  /** Fraction of equity in (0, 1], converted to units at the fill. */
  fraction?: number;
  limit?: number;
  stop?: number;
  stopLoss?: number;
  takeProfit?: number;
  tif?: TimeInForce;
  tag?: string;
}

/** Everything a strategy sees at the close of a bar. Nothing here reads a later bar. */
export interface StrategyContext {
  readonly index: number;
  readonly time: Millis;
  /** `YYYY-MM-DD` (or `YYYY-MM-DD HH:MM` for intraday data) of the current bar. */
  readonly timeLabel: string;
  readonly symbols: readonly string[];
  /** The first symbol: the default for every call that takes a symbol. */
  readonly symbol: string;
  readonly params: Readonly<Params>;
  /** Current bar of a symbol, or null when it has no bar at this time. */
  bar(symbol?: string): Bar | null;
  /** The last `n` bars of a symbol up to and including the current one. */
  bars(n: number, symbol?: string): Bar[];
  /** Close `ago` bars back (0 = current). */
  close(ago?: number, symbol?: string): number | null;
  /** Bars the symbol has had so far (its own count, not the master timeline's). */
  barCount(symbol?: string): number;
  /** A live view of an indicator; create it once (in `init`) and read `.value` each bar. */
  indicator(
    name: string,
    params?: Record<string, number>,
    options?: { symbol?: string; output?: string },
  ): IndicatorView;

  account(): AccountSnapshot;
  /** Signed units held (negative = short). */
  position(symbol?: string): number;
  readonly cash: number;
  readonly equity: number;
  orders(): readonly Order[];

  order(request: OrderRequest): Order;
  /** Throws a StrategyUsageError without a size: `buy({ fraction: 1 })` is all in. */
  buy(options: OrderOptions): Order;
  sell(options: OrderOptions): Order;
  /** Market order to a target weight of equity (negative = short), sized at the fill. */
  targetWeight(weight: number, symbol?: string): Order;
  /** Market order that closes the whole position at the next fill. */
  closePosition(symbol?: string): Order;
  cancel(orderId: number): boolean;

  /** Appends `[HH:MM] content` to today's journal. */
  log(content: string): void;
  /** Overwrites notes/<key>.md (the previous version is kept in backups/); `playbook` appends a lesson. */
  note(key: string, content: string): void;
  readNote(key: string): string | null;
  /** Writes this week's or month's review (in onWeekEnd / onMonthEnd). */
  review(period: "week" | "month", content: string): void;
  /**
   * Searches the run's memory as of now (nothing written later; decay tiers apply) by keywords
   * (BM25). In a run with --embed-model it throws: use recallAsync.
   */
  recall(query: string, limit?: number): Citation[];
  /** Like recall, hybrid (keywords + embeddings) when the run has --embed-model. */
  recallAsync(query: string, limit?: number): Promise<Citation[]>;
  /** The run's memory system (`--memory`): its tools as functions. */
  readonly memory: MemoryHandle;
  /** Ends the run cleanly after the current bar, with this status (e.g. a spent budget;
   * `interrupted` leaves it for `agenticbt resume` to go on with later). */
  stop(status: "budget_exhausted" | "stopped" | "interrupted", reason: string): void;
  readonly stopRequested: boolean;
  /** Adds fields to the decisions.jsonl line of the current decision or hook. */
  annotate(details: Record<string, unknown>): void;
  /** The last `n` values (oldest first, null in warm-up) of every output of an indicator. */
  indicatorValues(
    name: string,
    params: Record<string, number>,
    n: number,
    symbol?: string,
  ): {
    name: string;
    params: Record<string, number>;
    times: string[];
    values: Record<string, (number | null)[]>;
  };
}

/**
 * A code strategy: default-export one from `strategies/<name>.ts`. `init` runs once before the
 * first bar and returns the strategy's state (e.g. indicator views); every hook receives it.
 */
export interface Strategy<S = unknown> {
  name: string;
  description?: string;
  /** Default parameters; `--param key=value` overrides them (values keep the default's type). */
  params?: Params;
  init?(ctx: StrategyContext): S;
  onBar(ctx: StrategyContext, state: S): void | Promise<void>;
  onFill?(ctx: StrategyContext, fill: Fill, state: S): void | Promise<void>;
  onTradeClosed?(ctx: StrategyContext, trade: ClosedTrade, state: S): void | Promise<void>;
  onDayEnd?(ctx: StrategyContext, day: string, state: S): void | Promise<void>;
  onWeekEnd?(ctx: StrategyContext, week: string, state: S): void | Promise<void>;
  onMonthEnd?(ctx: StrategyContext, month: string, state: S): void | Promise<void>;
  /**
   * The last bar of the window has closed: the backtest ends here (e.g. write a final review).
   * Called after that bar's day, week and month ends (the last bar is a week or month end only if
   * the calendar says so) and before onBarEnd; not called when a run ends early (interrupted,
   * stopped, failed).
   */
  onRunEnd?(ctx: StrategyContext, state: S): void | Promise<void>;
  /** An order was rejected, cancelled or expired (e.g. to tell an agent at its next decision). */
  onOrderUpdate?(ctx: StrategyContext, update: OrderUpdate, state: S): void | Promise<void>;
  /** Last call of every bar, after the close and all of the bar's other hooks. */
  onBarEnd?(ctx: StrategyContext, state: S): void | Promise<void>;
}

export interface OrderUpdate {
  kind: "rejected" | "cancelled" | "expired";
  order: Readonly<Order>;
  reason: string;
}

/** Identity helper that gives a strategy literal its types (state inferred from `init`). */
export function defineStrategy<S>(strategy: Strategy<S>): Strategy<S> {
  return strategy;
}
