import type {
  DecisionFinishedEvent,
  DecisionStartedEvent,
  LlmCallEvent,
  RetryEvent,
} from "../agent/agent-events.js";
import type { ClosedTrade, Fill, Order } from "../engine/types.js";
import type { RunResult } from "../rundir/run-result.js";

export type { DecisionFinishedEvent, DecisionStartedEvent, LlmCallEvent, RetryEvent };

/**
 * What a run reports while it goes. Renderers (plain lines, the ink live view) and library users
 * consume only these: nothing a renderer shows is read from files. Every event that happens at a
 * bar carries `time` (the bar's label, as in the run's files) and `bar` (its index in the
 * timeline, warm-up bars included). The shapes only grow (new optional fields, new kinds).
 */
export type RunEvent =
  | LoadingEvent
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

/**
 * The data files are being parsed (before `run_started`): sent for a long load only (one that a
 * worker thread parses), at its start and then at most every LOADING_EVERY_MS, so a big file
 * never looks hung.
 */
export interface LoadingEvent {
  type: "loading";
  /** Bytes of the data files parsed so far, and in all. */
  bytesRead: number;
  bytesTotal: number;
  /** Wall time since the load started. */
  elapsedMs: number;
}

/** At most this often, a `loading` event. */
export const LOADING_EVERY_MS = 100;

/** `12.3 of 61.2 MB (20%)`: how far a load is, as every renderer says it. */
export function loadingText(e: LoadingEvent): string {
  const mb = (b: number) => (b / 1e6).toFixed(1);
  const pct = e.bytesTotal > 0 ? Math.floor((e.bytesRead / e.bytesTotal) * 100) : 0;
  return `${mb(e.bytesRead)} of ${mb(e.bytesTotal)} MB (${pct}%)`;
}

/** Back to the line's start and the line cleared: what a loading line is drawn after, and
 * cleared with. */
export const CLEAR_LINE = "\r\u001B[2K";

/** The live view's line while the data loads (ASCII: its length is its width). */
export function loadingLine(e: LoadingEvent): string {
  return `Loading data ${loadingText(e)} · ${(e.elapsedMs / 1000).toFixed(1)} s`;
}

/** Once, before the first bar. */
export interface RunStartedEvent {
  type: "run_started";
  /** The run id; "" for an in-memory `backtest()` (no run directory). */
  id: string;
  /** The run directory; "" for an in-memory `backtest()`. */
  dir: string;
  strategy: string;
  kind: "code" | "llm";
  symbols: string[];
  /** Bars to simulate (the window, warm-up excluded). */
  bars: number;
  /** Labels of the window's first and last bar (null when the window is empty). */
  start: string | null;
  end: string | null;
  initialCash: number;
  /** The checkpoint a resume continues from: its bar's label and the bars done by then; null for
   * a new run, or a resume that re-executes from the first bar (a warning says why). */
  resumedFrom: { time: string; done: number } | null;
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
  /** The deepest drawdown so far in percent (≤ 0), over every bar, not only the reported ones. */
  maxDrawdownPct: number;
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

/** An order was accepted (it is working from the next bar). */
export interface OrderAcceptedEvent {
  type: "order_accepted";
  time: string;
  bar: number;
  order: Readonly<Order>;
}

/** An order was rejected: emitted the moment it happens. */
export interface OrderRejectedEvent {
  type: "order_rejected";
  time: string;
  bar: number;
  order: Readonly<Order>;
  reason: string;
}

/** A working order was cancelled (by the strategy, OCO, data end) or expired (its time in force). */
export interface OrderCancelledEvent {
  type: "order_cancelled";
  time: string;
  bar: number;
  order: Readonly<Order>;
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
