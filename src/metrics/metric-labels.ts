import type { Metrics } from "./types.js";

/** How a metric is shown to people: its label and its decimals (result.json keeps full values),
 * and the tables it is a row of. */
export interface MetricFormat {
  label: string;
  digits: number;
  /** A row of the run summary's short table (`--metrics headline`), and what buy-and-hold shows
   * beside it: its own figure, a fixed one, or nothing. `diff` compares it too. */
  headline?: { benchmark: "metric" | number | null };
  /** Compared by `diff` besides the headline metrics. */
  diff?: true;
  /** Its column in `compare`, from 0. */
  compare?: number;
}

/**
 * Every metric of result.json, once, for every table people read (the run summary,
 * `--metrics all`, `diff`, `compare`, report.html). Listed in reading order: the summary and
 * `diff` show theirs in this order (`--metrics all` and report.html in result.json's). Units
 * follow the key: `…Pct` in percent, `…Days` in days, money in the account's currency.
 */
export const METRIC_FORMATS = {
  returnPct: { label: "Return %", digits: 2, headline: { benchmark: "metric" }, compare: 1 },
  buyHoldReturnPct: { label: "Buy & hold return %", digits: 2, diff: true, compare: 2 },
  returnAnnPct: { label: "Return (ann.) %", digits: 2, headline: { benchmark: "metric" } },
  volatilityAnnPct: { label: "Volatility (ann.) %", digits: 2, headline: { benchmark: "metric" } },
  sharpe: { label: "Sharpe", digits: 2, headline: { benchmark: "metric" }, compare: 3 },
  sortino: { label: "Sortino", digits: 2, headline: { benchmark: "metric" } },
  calmar: { label: "Calmar", digits: 2, diff: true },
  maxDrawdownPct: {
    label: "Max drawdown %",
    digits: 2,
    headline: { benchmark: "metric" },
    compare: 4,
  },
  exposurePct: { label: "Exposure %", digits: 1, headline: { benchmark: 100 } },
  trades: { label: "Trades", digits: 0, headline: { benchmark: null }, compare: 5 },
  winRatePct: { label: "Win rate %", digits: 1, headline: { benchmark: null }, compare: 6 },
  profitFactor: { label: "Profit factor", digits: 2, headline: { benchmark: null } },
  avgTradePct: { label: "Avg trade %", digits: 2, diff: true },
  commissions: { label: "Commissions", digits: 2, headline: { benchmark: 0 } },
  equityFinal: { label: "Final equity", digits: 2, headline: { benchmark: null }, compare: 0 },
  start: { label: "Start", digits: 0 },
  end: { label: "End", digits: 0 },
  durationDays: { label: "Duration (days)", digits: 1 },
  bars: { label: "Bars", digits: 0 },
  equityPeak: { label: "Peak equity", digits: 2 },
  cagrPct: { label: "CAGR %", digits: 2 },
  alphaPct: { label: "Alpha %", digits: 2 },
  beta: { label: "Beta", digits: 4 },
  avgDrawdownPct: { label: "Avg drawdown %", digits: 2 },
  maxDrawdownDurationDays: { label: "Max drawdown (days)", digits: 2 },
  avgDrawdownDurationDays: { label: "Avg drawdown (days)", digits: 2 },
  bestTradePct: { label: "Best trade %", digits: 2 },
  worstTradePct: { label: "Worst trade %", digits: 2 },
  maxTradeDurationDays: { label: "Max trade (days)", digits: 2 },
  avgTradeDurationDays: { label: "Avg trade (days)", digits: 2 },
  expectancyPct: { label: "Expectancy %", digits: 2 },
  sqn: { label: "SQN", digits: 2 },
  kellyCriterion: { label: "Kelly criterion", digits: 4 },
  slippage: { label: "Slippage", digits: 2 },
  periodsPerYear: { label: "Periods per year", digits: 0 },
} as const satisfies Record<keyof Metrics, MetricFormat>;

type MetricKey = keyof Metrics;

const REGISTRY: readonly [MetricKey, MetricFormat][] = Object.entries(METRIC_FORMATS) as [
  MetricKey,
  MetricFormat,
][];

/** The run summary's rows, in reading order, with what buy-and-hold shows beside each. */
export const HEADLINE_METRICS: readonly [key: MetricKey, benchmark: "metric" | number | null][] =
  REGISTRY.flatMap(([key, f]) => (f.headline ? [[key, f.headline.benchmark] as const] : []));

/** The metrics `diff` compares, in reading order: the headline ones and those marked `diff`. */
export const DIFF_METRICS: readonly MetricKey[] = REGISTRY.filter(
  ([, f]) => f.headline !== undefined || f.diff === true,
).map(([key]) => key);

/** The metrics `compare` tabulates, in their column order. */
export const COMPARED_METRICS: readonly MetricKey[] = REGISTRY.filter(
  ([, f]) => f.compare !== undefined,
)
  .sort(([, a], [, b]) => (a.compare ?? 0) - (b.compare ?? 0))
  .map(([key]) => key);

/** Figures compared beside the metrics that are not in result.json `metrics`. */
const OTHER_FORMATS: Record<string, MetricFormat> = {
  llmCostUsd: { label: "LLM cost (USD)", digits: 4 },
};

/** The format of a metric key; an unknown key (a newer result.json) shows as itself. */
export function metricFormat(key: string): MetricFormat {
  if (Object.hasOwn(METRIC_FORMATS, key)) return METRIC_FORMATS[key as keyof Metrics];
  return OTHER_FORMATS[key] ?? { label: key, digits: 4 };
}

const formatters = new Map<number, Intl.NumberFormat>();

/**
 * A metric's value for people: its decimals, thousands separated; "n/a" for null or a value that
 * is not a finite number; strings (dates) as they are.
 */
export function formatMetric(key: string, v: unknown): string {
  if (typeof v === "string") return v;
  if (typeof v !== "number" || !Number.isFinite(v)) return "n/a";
  const digits = metricFormat(key).digits;
  let f = formatters.get(digits);
  if (f === undefined) {
    f = new Intl.NumberFormat("en-US", {
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    });
    formatters.set(digits, f);
  }
  // A value that rounds to zero prints as zero, not "-0.00".
  const s = f.format(v);
  return /^-0(\.0*)?$/.test(s) ? s.slice(1) : s;
}
