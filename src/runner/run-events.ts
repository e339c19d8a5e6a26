import type { LlmErrorType, ResponseSource, TokenUsage } from "../agent/types.js";
import type { ClosedTrade, Fill, Order } from "../engine/types.js";
import type { RunResult } from "./run-result.js";

/**
 * What a run reports while it goes. Renderers (plain lines, the ink live view) and library users
 * consume only these: nothing a renderer shows is read from files. Every event that happens at a
 * bar carries `time` (the bar's label, as in the run's files) and `bar` (its index in the
 * timeline, warm-up bars included). The shapes only grow (new optional fields, new kinds).
 */
export type RunEvent =
  | RunStartedEvent
  | ProgressEvent
  | DecisionStartedEvent
  | DecisionFinishedEvent
  | OrderAcceptedEvent
  | OrderRejectedEvent
  | OrderCancelledEvent
  | FillEvent
  | TradeClosedEvent
  | MemoryWriteEvent
  | RecallEvent
  | LlmCallEvent
  | RetryEvent
  | WarningEvent
  | RunFinishedEvent;

export type RunEventType = RunEvent["type"];

/** Once, before the first bar. */
export interface RunStartedEvent {
  type: "run_started";
  /** The run id; "" for an in-memory `backtest()` (no run directory). */
  id: string;
  /** The run directory; null for an in-memory `backtest()`. */
  dir: string | null;
  strategy: string;
  kind: "code" | "llm";
  symbols: string[];
  /** Bars to simulate (the window, warm-up excluded). */
  bars: number;
  /** Labels of the window's first and last bar (null when the window is empty). */
  start: string | null;
  end: string | null;
  initialCash: number;
}

/**
 * Where the run is. The core emits at most a few hundred per run (about every 0.5% of the bars,
 * and at the last bar) plus one whenever it yields to the event loop; a renderer picks its own
 * cadence among them. Everything a live view needs without reading files: return vs buy-and-hold,
 * drawdown, positions.
 */
export interface ProgressEvent {
  type: "progress";
  /** Bars simulated so far and in all (the window). */
  done: number;
  total: number;
  time: string;
  bar: number;
  equity: number;
  cash: number;
  /** Highest equity so far, and the drawdown from it in percent (≤ 0). */
  peakEquity: number;
  drawdownPct: number;
  /** Total return in percent since the first bar of the window. */
  returnPct: number;
  /** Buy-and-hold equity (same definition as result.json's benchmark) and its return in percent. */
  benchmarkEquity: number;
  benchmarkReturnPct: number;
  /** Open positions at this bar's close (units, negative when short). */
  positions: { symbol: string; qty: number }[];
  /** Wall time since the simulation started. */
  elapsedMs: number;
}

/** An LLM decision (or memory turn) begins: the model is about to be asked. */
export interface DecisionStartedEvent {
  type: "decision_started";
  time: string;
  bar: number;
  /** "decision" for a trading decision, "moment" for a memory turn (end of day, fill...). */
  kind: "decision" | "moment";
  /** The memory moments of a "moment" turn (eod, week, month, fill, close, run_end). */
  moments?: string[];
}

/** An LLM decision ended, well or not. A failed one carries its typed error at once. */
export interface DecisionFinishedEvent {
  type: "decision_finished";
  time: string;
  bar: number;
  kind: "decision" | "moment";
  /** The model's closing text (its reason), or null. */
  rationale: string | null;
  toolCalls: { name: string; error: string | null }[];
  /** Model calls made in this decision, their tokens and wall time. */
  calls: number;
  tokens: TokenUsage;
  latencyMs: number;
  /** The typed failure (empty_reply, timeout, max_steps, budget_exhausted...), null if none. */
  error: { type: string; message: string } | null;
  /** Whether it counts as a failed decision (some errors, like budget_exhausted, do not). */
  failed: boolean;
}

/** An order was accepted (it is working from the next bar). */
export interface OrderAcceptedEvent {
  type: "order_accepted";
  time: string;
  bar: number;
  order: Order;
}

/** An order was rejected: emitted the moment it happens. */
export interface OrderRejectedEvent {
  type: "order_rejected";
  time: string;
  bar: number;
  order: Order;
  reason: string;
}

/** A working order was cancelled (by the strategy, OCO, data end) or expired (its time in force). */
export interface OrderCancelledEvent {
  type: "order_cancelled";
  time: string;
  bar: number;
  order: Order;
  reason: string;
  expired: boolean;
}

export interface FillEvent {
  type: "fill";
  time: string;
  bar: number;
  fill: Fill;
}

export interface TradeClosedEvent {
  type: "trade_closed";
  time: string;
  bar: number;
  trade: ClosedTrade;
}

/** The strategy wrote memory (log, note, review, playbook...). */
export interface MemoryWriteEvent {
  type: "memory_write";
  time: string;
  bar: number;
  tool: string;
  key?: string;
  chars: number;
}

/** The strategy recalled its memory. */
export interface RecallEvent {
  type: "recall";
  time: string;
  bar: number;
  query: string;
  citations: number;
}

/** One model call, answered or failed for good (after its retries). */
export interface LlmCallEvent {
  type: "llm_call";
  model: string;
  source: ResponseSource;
  tokens: TokenUsage;
  /** USD of this call (0 for cache and replay); null when the model's price is unknown. */
  costUsd: number | null;
  latencyMs: number;
  attempts: number;
  error: LlmErrorType | null;
}

/** A model call failed and will be retried after `delayMs`. */
export interface RetryEvent {
  type: "retry";
  model: string;
  error: LlmErrorType;
  message: string;
  /** The attempt that failed (1 = the first). */
  attempt: number;
  delayMs: number;
}

/** Something the user should know now (data warnings, rejections summary, report not written). */
export interface WarningEvent {
  type: "warning";
  message: string;
}

/** Once, at the end, whatever the status; `result` is what result.json holds. */
export interface RunFinishedEvent {
  type: "run_finished";
  result: RunResult;
}

export type RunEventListener = (event: RunEvent) => void;
