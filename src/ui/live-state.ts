import type { UsageSnapshot } from "../agent/llm/usage-meter.js";
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
  orders: string[];
  rationale: string;
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
  equity: number | null;
  initialEquity: number | null;
  /** Buy-and-hold's equity on the same bar, when the run reports it. */
  benchmark: number | null;
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

export function initialLiveState(): LiveState {
  return {
    runId: null,
    strategy: "",
    symbols: [],
    done: 0,
    total: 0,
    time: null,
    equity: null,
    initialEquity: null,
    benchmark: null,
    drawdownPct: null,
    positions: [],
    lastDecision: null,
    toolCalls: [],
    llm: null,
    counts: { fills: 0, tradesClosed: 0, rejected: 0, failedDecisions: 0, retries: 0 },
    warnings: [],
    status: null,
  };
}

const keepLast = <T>(list: readonly T[], item: T, n: number): T[] => [...list, item].slice(-n);

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
      };
    case "progress":
      return {
        ...s,
        done: e.done,
        total: e.total,
        time: e.time,
        equity: e.equity,
      };
    case "fill":
      return {
        ...s,
        positions: applyFill(
          s.positions,
          e.fill.symbol,
          e.fill.side === "buy" ? e.fill.qty : -e.fill.qty,
        ),
        counts: { ...s.counts, fills: s.counts.fills + 1 },
      };
    case "trade_closed":
      return { ...s, counts: { ...s.counts, tradesClosed: s.counts.tradesClosed + 1 } };
    case "warning":
      return { ...s, warnings: keepLast(s.warnings, e.message, WARNINGS_KEPT) };
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

function applyFill(positions: LivePosition[], symbol: string, delta: number): LivePosition[] {
  const current = positions.find((p) => p.symbol === symbol)?.qty ?? 0;
  const qty = current + delta;
  const rest = positions.filter((p) => p.symbol !== symbol);
  // Float residue of fractional fills is not a position.
  return Math.abs(qty) < 1e-9 ? rest : [...rest, { symbol, qty }].sort(bySymbol);
}

const bySymbol = (a: LivePosition, b: LivePosition) =>
  a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0;

export { keepLast };
