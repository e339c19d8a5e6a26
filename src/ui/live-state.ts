import { retryWaitLine } from "../agent/agent-events.js";
import type { UsageSnapshot } from "../agent/llm/usage-meter.js";
import type { Order } from "../engine/types.js";
import type { RunResult } from "../rundir/run-result.js";
import type { LoadingEvent, RunEvent } from "../runner/run-events.js";
import { assertNever } from "../util/assert-never.js";

/** An open position as the live view shows it. */
export interface LivePosition {
  symbol: string;
  qty: number;
}

/** The last decision: when, the orders it placed (one line each) and its rationale. */
export interface LiveDecision {
  time: string;
  bar: number;
  orders: string[];
  rationale: string;
  failed: boolean;
}

/** An LLM run's budget, from its options (`--max-cost`, `--max-tokens`). */
export interface LiveBudget {
  maxCostUsd: number | null;
  maxTokens: number | null;
}

/**
 * What the live view shows, folded from run events alone. Updating it is cheap (in place)
 * so every event lands at once; drawing it is throttled elsewhere.
 */
export interface LiveState {
  /** The data being parsed, before the run starts (a long load only); null once it has. */
  loading: LoadingEvent | null;
  runId: string | null;
  /** A resumed run's checkpoint label (null: it started at the first bar). */
  resumedFrom: string | null;
  strategy: string;
  symbols: string[];
  done: number;
  total: number;
  /** The simulated date of the last bar closed. */
  time: string | null;
  /** Wall time of the simulation so far, as the run reported it (for the ETA). */
  elapsedMs: number | null;
  equity: number | null;
  returnPct: number | null;
  benchmarkReturnPct: number | null;
  drawdownPct: number | null;
  /** The deepest drawdown so far; at the end, result.json's. */
  maxDrawdownPct: number | null;
  positions: LivePosition[];
  /** "code" or "llm", from run_started. */
  kind: "code" | "llm" | null;
  /** A code run's orders accepted at the latest bar that had any (an LLM run's are its last
   * decision's); `more` counts those past ORDERS_KEPT. */
  lastOrders: { time: string; bar: number; orders: string[]; more: number } | null;
  /** When the model call under way started, on the renderer's clock (ms): set by the renderer,
   * which has a clock, from decision_started and llm_call; null when none is. */
  callStartedMs: number | null;
  lastDecision: LiveDecision | null;
  /** The latest tool calls, oldest first (at most TICKER_LENGTH). */
  toolCalls: string[];
  llm: {
    calls: number;
    tokens: number;
    /** Some call's server reported no usage: the tokens (and so the cost) are unknown, not 0. */
    tokensUnknown?: boolean;
    costUsd: number;
    /** Some call's price is unknown (a local or unpriced model): the cost is unknown. */
    costUnknown: boolean;
    maxCostUsd: number | null;
    maxTokens: number | null;
  } | null;
  counts: {
    fills: number;
    tradesClosed: number;
    /** At the end: the trades as the summary counts them (closed and still open), and the open. */
    trades: number | null;
    openAtEnd: number;
    rejected: number;
    failedDecisions: number;
    retries: number;
  };
  /** The latest warnings (at most WARNINGS_KEPT). */
  warnings: string[];
  /** A model call waiting before its retry (what the wait is), until a call or decision ends. */
  waiting: string | null;
  status: string | null;
}

export const TICKER_LENGTH = 6;
export const WARNINGS_KEPT = 3;
/** A code run's orders of one bar shown (the rest counted). */
const ORDERS_KEPT = 4;

export function initialLiveState(budget: LiveBudget | null = null): LiveState {
  return {
    loading: null,
    runId: null,
    resumedFrom: null,
    strategy: "",
    symbols: [],
    done: 0,
    total: 0,
    time: null,
    elapsedMs: null,
    equity: null,
    returnPct: null,
    benchmarkReturnPct: null,
    drawdownPct: null,
    maxDrawdownPct: null,
    positions: [],
    kind: null,
    lastOrders: null,
    callStartedMs: null,
    lastDecision: null,
    toolCalls: [],
    llm: budget === null ? null : emptyLlm(budget),
    counts: {
      fills: 0,
      tradesClosed: 0,
      trades: null,
      openAtEnd: 0,
      rejected: 0,
      failedDecisions: 0,
      retries: 0,
    },
    warnings: [],
    waiting: null,
    status: null,
  };
}

function emptyLlm(budget: LiveBudget | null): NonNullable<LiveState["llm"]> {
  return {
    calls: 0,
    tokens: 0,
    costUsd: 0,
    costUnknown: false,
    maxCostUsd: null,
    maxTokens: null,
    ...budget,
  };
}

const keepLast = <T>(list: readonly T[], items: readonly T[], n: number): T[] =>
  list.length + items.length <= n ? [...list, ...items] : [...list, ...items].slice(-n);

function sizeText(size: Order["size"]): string {
  switch (size.kind) {
    case "qty":
      return `${size.qty}`;
    case "fraction":
      return `${round(size.fraction * 100)}%`;
    case "weight":
      return `weight ${size.weight}`;
    default:
      return assertNever(size, "order size");
  }
}

/** `BUY 10 GOOG limit 101.5`, `SELL 50% SPY market`; a side-less order (a target weight) reads `ORDER`. */
export function orderLine(o: Order): string {
  const size = sizeText(o.size);
  const price =
    o.limitPrice !== null
      ? `limit ${o.limitPrice}`
      : o.stopPrice !== null
        ? `stop ${o.stopPrice}`
        : o.type;
  const tag = o.tag ? ` [${o.tag}]` : "";
  return `${o.side === null ? "ORDER" : o.side.toUpperCase()} ${size} ${o.symbol} ${price}${tag}`;
}

const round = (v: number) => Math.round(v * 100) / 100;

/** The live view's state after `e`: pure, no clock, no I/O (a copy of `s`, folded). */
export function liveState(s: LiveState, e: RunEvent): LiveState {
  const next = copyLiveState(s);
  foldLiveEvent(next, e);
  return next;
}

/** A copy of `s` that folding may change without touching `s`. Events' own arrays (symbols,
 * positions) are shared: folding replaces them, never changes them. */
export function copyLiveState(s: LiveState): LiveState {
  return {
    ...s,
    counts: { ...s.counts },
    llm: s.llm === null ? null : { ...s.llm },
    lastDecision:
      s.lastDecision === null ? null : { ...s.lastDecision, orders: [...s.lastDecision.orders] },
    lastOrders:
      s.lastOrders === null ? null : { ...s.lastOrders, orders: [...s.lastOrders.orders] },
    toolCalls: [...s.toolCalls],
    warnings: [...s.warnings],
  };
}

/**
 * Folds `e` into `s` in place: the live renderer's own state, which a run's tens of thousands of
 * order and fill events update without a copy each (a frame is a copy, made when it is sent).
 */
export function foldLiveEvent(s: LiveState, e: RunEvent): void {
  const counts = s.counts;
  switch (e.type) {
    case "loading":
      // A late event (queued while the line drawn on screen went on) never takes the line back.
      if (s.loading !== null && e.bytesRead < s.loading.bytesRead) return;
      // Events' objects are not changed by folding: this one can be kept as it is.
      s.loading = e;
      return;
    case "run_started":
      s.loading = null;
      s.runId = e.id;
      s.resumedFrom = e.resumedFrom?.time ?? null;
      s.strategy = e.strategy;
      s.symbols = e.symbols;
      s.total = e.bars;
      s.time = e.start;
      s.equity = e.initialCash;
      s.kind = e.kind;
      if (e.kind === "llm") s.llm ??= emptyLlm(null);
      return;
    case "progress":
      s.done = e.done;
      s.total = e.total;
      s.time = e.time;
      s.elapsedMs = e.elapsedMs;
      s.equity = e.equity;
      s.returnPct = e.returnPct;
      s.benchmarkReturnPct = e.benchmarkReturnPct;
      s.drawdownPct = e.drawdownPct;
      s.maxDrawdownPct = e.maxDrawdownPct;
      s.positions = e.positions;
      return;
    case "order_accepted": {
      // The engine reports a decision's orders after the decision has finished, at its bar.
      const d = s.lastDecision;
      if (d !== null && d.bar === e.bar) d.orders.push(orderLine(e.order));
      // A code run's decisions are its onBar: the orders of its latest bar that placed any.
      if (s.kind !== "code") return;
      if (s.lastOrders?.bar === e.bar) {
        if (s.lastOrders.orders.length < ORDERS_KEPT) s.lastOrders.orders.push(orderLine(e.order));
        else s.lastOrders.more++;
      } else s.lastOrders = { time: e.time, bar: e.bar, orders: [orderLine(e.order)], more: 0 };
      return;
    }
    case "order_rejected":
      counts.rejected++;
      return;
    case "decision_finished": {
      s.waiting = null;
      s.toolCalls = keepLast(
        s.toolCalls,
        e.toolCalls.map((c) => (c.error ? `${c.name} ✗` : c.name)),
        TICKER_LENGTH,
      );
      if (e.failed) counts.failedDecisions++;
      if (e.kind !== "decision") return;
      s.lastDecision = {
        time: e.time,
        bar: e.bar,
        orders: [],
        // Shown on one line: a runaway answer is not copied into every frame.
        rationale: e.error
          ? `${e.error.type}: ${e.error.message}`
          : (e.rationale ?? "").slice(0, 1000),
        failed: e.failed,
      };
      return;
    }
    case "llm_call": {
      s.waiting = null;
      const llm = s.llm ?? emptyLlm(null);
      llm.calls += 1;
      llm.tokens += e.tokens.prompt + e.tokens.completion;
      if (e.tokens.unknown) llm.tokensUnknown = true;
      llm.costUsd += e.costUsd ?? 0;
      if (e.costUsd === null) llm.costUnknown = true;
      s.llm = llm;
      return;
    }
    case "retry":
      counts.retries++;
      s.waiting = retryWaitLine(e);
      return;
    case "fill":
      counts.fills++;
      return;
    case "trade_closed":
      counts.tradesClosed++;
      return;
    case "warning":
      s.warnings = keepLast(s.warnings, [e.message], WARNINGS_KEPT);
      return;
    case "run_finished":
      s.waiting = null;
      finished(s, e.result);
      return;
    case "decision_started":
    case "order_cancelled":
    case "memory_write":
    case "recall":
      return;
    default:
      assertNever(e, "run event");
  }
}

/** The last frame: the totals the run wrote to result.json replace the running counts. */
function finished(s: LiveState, r: RunResult): void {
  const usage = r.llm?.usage as UsageSnapshot | undefined;
  const sum = (counts: Partial<Record<string, number>>) =>
    Object.values(counts).reduce<number>((a, b) => a + (b ?? 0), 0);
  s.status = r.status;
  s.counts.rejected = r.orders.rejected;
  if (r.metrics) {
    s.counts.trades = r.metrics.trades;
    s.maxDrawdownPct = r.metrics.maxDrawdownPct ?? s.maxDrawdownPct;
  }
  s.counts.openAtEnd = r.trades?.openAtEnd ?? 0;
  s.counts.failedDecisions = r.llm?.agent.failedDecisions ?? s.counts.failedDecisions;
  if (usage !== undefined) {
    s.counts.retries = sum(usage.retries);
    s.llm = {
      maxCostUsd: null,
      maxTokens: null,
      ...s.llm,
      calls: usage.calls.total,
      tokens: usage.tokens.prompt + usage.tokens.completion,
      ...((usage.usageUnknown?.calls ?? 0) > 0 || s.llm?.tokensUnknown
        ? { tokensUnknown: true }
        : {}),
      costUsd: usage.cost.usd ?? s.llm?.costUsd ?? 0,
      costUnknown: usage.cost.usd === null || (s.llm?.costUnknown ?? false),
    };
  }
}
