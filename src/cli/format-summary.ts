import { reasonLines } from "../runner/order-outcomes.js";
import type { RunResult } from "../runner/run-result.js";

type Row = [
  label: string,
  strategy: number | null | undefined,
  benchmark: number | null | undefined,
  digits: number,
];

const fmt = (v: number | null | undefined, digits: number): string =>
  v === null || v === undefined
    ? "n/a"
    : v.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

/**
 * The short strategy-vs-buy-and-hold table printed at the end of a run; with `allMetrics`, every
 * metric result.json holds (`run --metrics all`).
 */
export function formatSummary(r: RunResult, opts: { allMetrics?: boolean } = {}): string {
  const m = r.metrics;
  const b = r.benchmark.metrics;
  const symbols = r.data.map((d) => d.symbol).join(", ");
  const head = `${r.strategy.name} on ${symbols}, ${r.period.start ?? "(no bar)"} → ${r.period.end ?? "(no bar)"} (${barsLine(r.period)})`;
  const rows: Row[] = [
    ["Return %", m?.returnPct, b?.returnPct, 2],
    ["Return (ann.) %", m?.returnAnnPct, b?.returnAnnPct, 2],
    ["Volatility (ann.) %", m?.volatilityAnnPct, b?.volatilityAnnPct, 2],
    ["Sharpe", m?.sharpe, b?.sharpe, 2],
    ["Sortino", m?.sortino, b?.sortino, 2],
    ["Max drawdown %", m?.maxDrawdownPct, b?.maxDrawdownPct, 2],
    ["Exposure %", m?.exposurePct, 100, 1],
    ["Trades", m?.trades, null, 0],
    ["Win rate %", m?.winRatePct, null, 1],
    ["Profit factor", m?.profitFactor, null, 2],
    ["Commissions", m?.commissions, 0, 2],
    ["Final equity", m?.equityFinal, null, 2],
  ];
  const lines = [head, ""];
  if (m && opts.allMetrics) {
    lines.push(...allMetricLines(m, b));
  } else if (m) {
    const cells = rows.map(
      ([label, s, bench, digits]): Cells => [
        label,
        fmt(s, digits),
        bench === null ? "" : fmt(bench, digits),
      ],
    );
    // 14 wide, or wider for a number that would otherwise run into its neighbour.
    const w = columnWidth(14, cells);
    lines.push(`${"".padEnd(22)}${"Strategy".padStart(w)}${"Buy & hold".padStart(w)}`);
    for (const [label, s, bench] of cells) {
      lines.push(`${label.padEnd(22)}${s.padStart(w)}${bench.padStart(w)}`);
    }
  } else {
    // A table of n/a says nothing: say why there are no metrics.
    lines.push(`No metrics: ${r.nullReasons.metrics ?? "no bar was simulated"}.`);
  }
  if (m) lines.push(...orderLines(r.orders as OrderView | undefined));
  if (r.llm) lines.push("", llmLine(r.llm));
  if (m && m.trades < 30) {
    lines.push(
      "",
      `Small sample: ${m.trades} closed trade(s); treat trade statistics with caution.`,
    );
  }
  if (r.status !== "completed") {
    const why = r.error
      ? ` (${r.error.type}: ${r.error.message})`
      : r.stopReason
        ? ` (${r.stopReason})`
        : "";
    lines.push("", `Status: ${r.status}${why}`);
  }
  return lines.join("\n");
}

/** "100 of 2148 bars" when the run ended before its window did, else "2148 bars". */
function barsLine(p: { bars: number; requested?: { bars: number } }): string {
  const requested = p.requested?.bars;
  return requested !== undefined && requested !== p.bars
    ? `${p.bars} of ${requested} bars`
    : `${p.bars} bars`;
}

/** result.json `orders`; absent in results written before it was recorded. */
interface OrderView {
  submitted: number;
  filled: number;
  rejected: number;
  cancelled: number;
  expired: number;
  rejectReasons?: { reason: string; count: number }[];
}

/** Order counts by outcome, and the top rejection reasons when any order was rejected. */
function orderLines(o: OrderView | undefined): string[] {
  if (!o) return [];
  const lines = [
    "",
    `Orders: ${o.submitted} submitted, ${o.filled} filled, ${o.rejected} rejected, ${o.cancelled} cancelled, ${o.expired} expired`,
  ];
  if (o.rejected > 0 && o.rejectReasons) {
    lines.push(
      "Rejected (top reasons):",
      ...reasonLines({ rejected: o.rejected, rejectReasons: o.rejectReasons }),
    );
  }
  return lines;
}

interface UsageView {
  calls: { total: number; network: number; cache: number; replay: number; failed: number };
  billedTokens: { prompt: number; completion: number; cached: number };
  cost: { usd: number | null; reason: string | null };
  retries?: Record<string, number>;
}

/** What the model cost: calls by source, billed tokens, money (or why it is unknown), failures. */
function llmLine(llm: NonNullable<RunResult["llm"]>): string {
  const u = llm.usage as UsageView;
  const a = llm.agent;
  const cost =
    u.cost.usd === null ? `cost unknown (${u.cost.reason})` : `$${u.cost.usd.toFixed(4)}`;
  const sources = [
    u.calls.cache ? `${u.calls.cache} from cache` : "",
    u.calls.replay ? `${u.calls.replay} replayed` : "",
  ]
    .filter(Boolean)
    .join(", ");
  const errors = Object.entries(a.turnErrors)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  const toolErrors = Object.values(a.toolErrors).reduce((x, y) => x + y, 0);
  const retried = Object.entries(u.retries ?? {})
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  return [
    `LLM ${llm.model}: ${a.decisions} decisions, ${a.moments} memory moments, ${u.calls.total} calls${sources ? ` (${sources})` : ""}`,
    `  billed tokens ${u.billedTokens.prompt} in (${u.billedTokens.cached} cached) / ${u.billedTokens.completion} out, ${cost}`,
    `  failed turns: ${errors || "none"}; failed tool calls: ${toolErrors}; retried faults: ${retried || "none"}`,
  ].join("\n");
}

/**
 * Every metric of result.json by its key there, the benchmark's beside when it has one: counts
 * as whole numbers, the rest with 4 decimals (small ratios such as beta or Kelly need them).
 */
function allMetricLines(m: object, b: object | null): string[] {
  const bench = (b ?? {}) as Record<string, unknown>;
  const cell = (v: unknown): string => {
    if (v === undefined) return "";
    if (typeof v === "number") return fmt(v, Number.isInteger(v) ? 0 : 4);
    return v === null ? "n/a" : String(v);
  };
  const entries = Object.entries(m);
  const width = Math.max(22, ...entries.map(([k]) => k.length + 2));
  const cells = entries.map(([k, v]): Cells => [k, cell(v), cell(bench[k])]);
  const w = columnWidth(18, cells);
  return [
    `${"".padEnd(width)}${"Strategy".padStart(w)}${"Buy & hold".padStart(w)}`,
    ...cells.map(([k, s, b]) => `${k.padEnd(width)}${s.padStart(w)}${b.padStart(w)}`),
  ];
}

/** A table row: its label, the strategy's value, the benchmark's. */
type Cells = [label: string, strategy: string, benchmark: string];

/** A value column's width: `min`, or one more than its longest cell (never two values touching). */
function columnWidth(min: number, rows: Cells[]): number {
  let longest = 0;
  for (const [, s, b] of rows) longest = Math.max(longest, s.length, b.length);
  return Math.max(min, longest + 1);
}
