import type { UsageSnapshot } from "../agent/llm/usage-meter.js";
import type { Order } from "../engine/types.js";
import type { RunEvent } from "../runner/run-events.js";
import type { RunResult } from "../runner/run-result.js";

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
 * What the live view shows, folded from run events alone. Updating it is cheap (a shallow copy)
 * so every event lands at once; drawing it is throttled elsewhere.
 */
export interface LiveState {
  runId: string | null;
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
  positions: LivePosition[];
  lastDecision: LiveDecision | null;
  /** The latest tool calls, oldest first (at most TICKER_LENGTH). */
  toolCalls: string[];
  llm: {
    calls: number;
    tokens: number;
    costUsd: number;
    maxCostUsd: number | null;
    maxTokens: number | null;
  } | null;
  counts: {
    fills: number;
    tradesClosed: number;
    rejected: number;
    failedDecisions: number;
    retries: number;
  };
  /** The latest warnings (at most WARNINGS_KEPT). */
  warnings: string[];
  status: string | null;
}

export const TICKER_LENGTH = 6;
export const WARNINGS_KEPT = 3;

export function initialLiveState(budget: LiveBudget | null = null): LiveState {
  return {
    runId: null,
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
    positions: [],
    lastDecision: null,
    toolCalls: [],
    llm: budget === null ? null : emptyLlm(budget),
    counts: { fills: 0, tradesClosed: 0, rejected: 0, failedDecisions: 0, retries: 0 },
    warnings: [],
    status: null,
  };
}

function emptyLlm(budget: LiveBudget | null): NonNullable<LiveState["llm"]> {
  return { calls: 0, tokens: 0, costUsd: 0, maxCostUsd: null, maxTokens: null, ...budget };
}

const keepLast = <T>(list: readonly T[], items: readonly T[], n: number): T[] =>
  list.length + items.length <= n ? [...list, ...items] : [...list, ...items].slice(-n);

/** `BUY 10 GOOG limit 101.5`, `SELL 50% SPY market`; a side-less order (a target weight) reads `ORDER`. */
export function orderLine(o: Order): string {
  const size =
    o.size.kind === "qty"
      ? `${o.size.qty}`
      : o.size.kind === "fraction"
        ? `${round(o.size.fraction * 100)}%`
        : `weight ${o.size.weight}`;
  const price =
    o.limitPrice !== null
      ? `limit ${o.limitPrice}`
      : o.stopPrice !== null
        ? `stop ${o.stopPrice}`
        : o.type;
  return `${o.side === null ? "ORDER" : o.side.toUpperCase()} ${size} ${o.symbol} ${price}`;
}

const round = (v: number) => Math.round(v * 100) / 100;

/** The live view's state after `e`: pure, no clock, no I/O. */
export function liveState(s: LiveState, e: RunEvent): LiveState {
  switch (e.type) {
    case "run_started":
      return {
        ...s,
        runId: e.id,
        strategy: e.strategy,
        symbols: e.symbols,
        total: e.bars,
        time: e.start,
        equity: e.initialCash,
        llm: e.kind === "llm" ? (s.llm ?? emptyLlm(null)) : s.llm,
      };
    case "progress":
      return {
        ...s,
        done: e.done,
        total: e.total,
        time: e.time,
        elapsedMs: e.elapsedMs,
        equity: e.equity,
        returnPct: e.returnPct,
        benchmarkReturnPct: e.benchmarkReturnPct,
        drawdownPct: e.drawdownPct,
        positions: e.positions,
      };
    case "order_accepted": {
      // The engine reports a decision's orders after the decision has finished, at its bar.
      const d = s.lastDecision;
      if (d === null || d.bar !== e.bar) return s;
      return { ...s, lastDecision: { ...d, orders: [...d.orders, orderLine(e.order)] } };
    }
    case "order_rejected":
      return { ...s, counts: { ...s.counts, rejected: s.counts.rejected + 1 } };
    case "decision_finished": {
      const toolCalls = keepLast(
        s.toolCalls,
        e.toolCalls.map((c) => (c.error ? `${c.name} ✗` : c.name)),
        TICKER_LENGTH,
      );
      const counts = e.failed
        ? { ...s.counts, failedDecisions: s.counts.failedDecisions + 1 }
        : s.counts;
      if (e.kind !== "decision") return { ...s, toolCalls, counts };
      return {
        ...s,
        toolCalls,
        counts,
        lastDecision: {
          time: e.time,
          bar: e.bar,
          orders: [],
          rationale: e.error ? `${e.error.type}: ${e.error.message}` : (e.rationale ?? ""),
          failed: e.failed,
        },
      };
    }
    case "llm_call": {
      const llm = s.llm ?? emptyLlm(null);
      return {
        ...s,
        llm: {
          ...llm,
          calls: llm.calls + 1,
          tokens: llm.tokens + e.tokens.prompt + e.tokens.completion,
          costUsd: llm.costUsd + (e.costUsd ?? 0),
        },
      };
    }
    case "retry":
      return { ...s, counts: { ...s.counts, retries: s.counts.retries + 1 } };
    case "fill":
      return { ...s, counts: { ...s.counts, fills: s.counts.fills + 1 } };
    case "trade_closed":
      return { ...s, counts: { ...s.counts, tradesClosed: s.counts.tradesClosed + 1 } };
    case "warning":
      return { ...s, warnings: keepLast(s.warnings, [e.message], WARNINGS_KEPT) };
    case "run_finished":
      return finished(s, e.result);
    default:
      return s;
  }
}

/** The last frame: the totals the run wrote to result.json replace the running counts. */
function finished(s: LiveState, r: RunResult): LiveState {
  const usage = r.llm?.usage as UsageSnapshot | undefined;
  const sum = (counts: Partial<Record<string, number>>) =>
    Object.values(counts).reduce<number>((a, b) => a + (b ?? 0), 0);
  return {
    ...s,
    status: r.status,
    counts: {
      ...s.counts,
      rejected: r.orders.rejected,
      failedDecisions: r.llm?.agent.failedDecisions ?? s.counts.failedDecisions,
      retries: usage ? sum(usage.retries) : s.counts.retries,
    },
    llm:
      usage === undefined
        ? s.llm
        : {
            maxCostUsd: null,
            maxTokens: null,
            ...s.llm,
            calls: usage.calls.total,
            tokens: usage.tokens.prompt + usage.tokens.completion,
            costUsd: usage.cost.usd ?? s.llm?.costUsd ?? 0,
          },
  };
}
