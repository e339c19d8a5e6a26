import { formatMetric, HEADLINE_METRICS, metricFormat } from "../metrics/metric-labels.js";
import { reasonLines } from "../rundir/order-outcomes.js";
import { describeRunError, type RunResult } from "../rundir/run-result.js";

/**
 * The short strategy-vs-buy-and-hold table printed at the end of a run; with `allMetrics`, every
 * metric result.json holds (`run --metrics all`).
 */
export function formatSummary(r: RunResult, opts: { allMetrics?: boolean } = {}): string {
  const m = r.metrics;
  const b = r.benchmark.metrics;
  const symbols = r.data.map((d) => d.symbol).join(", ");
  const window =
    r.period.start === null ? "no bar simulated" : `${r.period.start} → ${r.period.end ?? "?"}`;
  const head = `${r.strategy.name} on ${symbols}, ${window} (${barsLine(r.period)})`;
  const lines = [head, ""];
  if (m && opts.allMetrics) {
    lines.push(...allMetricLines(m, b));
  } else if (m) {
    const bench = (b ?? {}) as Record<string, unknown>;
    const cells = HEADLINE_METRICS.map(
      ([key, other]): Cells => [
        metricFormat(key).label,
        formatMetric(key, m[key]),
        other === null ? "" : formatMetric(key, other === "metric" ? (bench[key] ?? null) : other),
      ],
    );
    // 14 wide, or wider for a number that would otherwise run into its neighbour.
    lines.push(...tableLines(cells, 22, 14));
  } else {
    // A table of n/a says nothing: say why there are no metrics.
    lines.push(`No metrics: ${r.nullReasons.metrics ?? "no bar was simulated"}.`);
  }
  if (m) lines.push(...orderLines(r.orders as OrderView | undefined));
  if (r.llm) lines.push("", llmLine(r.llm));
  if (m) {
    const note = sampleNote(m.trades, r.trades?.openAtEnd ?? 0);
    if (note !== null) lines.push("", note);
  }
  if (r.status !== "completed") {
    const why = r.error
      ? ` (${describeRunError(r.error)})`
      : r.stopReason
        ? ` (${r.stopReason})`
        : "";
    lines.push("", `Status: ${r.status}${why}`);
  }
  return lines.join("\n");
}

/** Fewer than 30 trades: the trade statistics rest on few of them. `trades` counts the positions
 * still open at the end too (valued at the last close, as backtesting.py counts them). */
function sampleNote(trades: number, openAtEnd: number): string | null {
  if (trades === 0) return "No trades: the trade statistics are n/a.";
  if (trades >= 30) return null;
  const open = openAtEnd > 0 ? `, ${openAtEnd} of them still open at the end` : "";
  return `Small sample: ${trades} trade(s)${open}; treat trade statistics with caution.`;
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

/** A count with thousands separators (a minute run places orders by the hundred thousand). */
const COUNT = new Intl.NumberFormat("en-US");
const count = (n: number) => COUNT.format(n);

/** Order counts by outcome, and the top rejection reasons when any order was rejected. */
function orderLines(o: OrderView | undefined): string[] {
  if (!o) return [];
  const lines = [
    "",
    `Orders: ${count(o.submitted)} submitted, ${count(o.filled)} filled, ${count(o.rejected)} rejected, ${count(o.cancelled)} cancelled, ${count(o.expired)} expired`,
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
  reasoningTokens?: number;
  usageUnknown?: {
    calls: number;
    billedCalls: number;
    estimated: { prompt: number; completion: number };
  };
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
    `  billed tokens ${billedTokens(u)}, ${cost}`,
    `  failed turns: ${errors || "none"}; failed tool calls: ${toolErrors}; retried faults: ${retried || "none"}`,
  ].join("\n");
}

/** Billed tokens, or "unknown" when the server reported none: never a 0 that was not counted. */
function billedTokens(u: UsageView): string {
  const b = u.billedTokens;
  const reasoning = u.reasoningTokens ? ` (${u.reasoningTokens} reasoning)` : "";
  const known = `${b.prompt} in (${b.cached} cached) / ${b.completion} out${reasoning}`;
  const unknown = u.usageUnknown?.billedCalls ?? 0;
  if (unknown === 0) return known;
  const n = `${unknown} call${unknown === 1 ? "" : "s"}`;
  const e = u.usageUnknown?.estimated ?? { prompt: 0, completion: 0 };
  const estimate = `local estimate ~${e.prompt} in / ~${e.completion} out`;
  return unknown >= u.calls.network
    ? `unknown (no usage reported for ${n}; ${estimate})`
    : `at least ${known}, and unknown for ${n} without usage (${estimate})`;
}

/** Every metric of result.json by its label, the benchmark's beside when it has one. */
function allMetricLines(m: object, b: object | null): string[] {
  const bench = (b ?? {}) as Record<string, unknown>;
  const cells = Object.entries(m).map(
    ([k, v]): Cells => [
      metricFormat(k).label,
      formatMetric(k, v),
      bench[k] === undefined ? "" : formatMetric(k, bench[k]),
    ],
  );
  return tableLines(cells, 22, 18);
}

/** The table under "Strategy" and "Buy & hold": labels at least `labelWidth` wide, values
 * right-aligned in columns of `minWidth` or more; no trailing spaces. */
function tableLines(cells: Cells[], labelWidth: number, minWidth: number): string[] {
  const width = Math.max(labelWidth, ...cells.map(([label]) => label.length + 2));
  const w = columnWidth(minWidth, cells);
  return [
    `${"".padEnd(width)}${"Strategy".padStart(w)}${"Buy & hold".padStart(w)}`,
    ...cells.map(([k, s, b]) => `${k.padEnd(width)}${s.padStart(w)}${b.padStart(w)}`.trimEnd()),
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
