import type { Metrics } from "./types.js";

/** How a metric is shown to people: its label and its decimals (result.json keeps full values). */
export interface MetricFormat {
  label: string;
  digits: number;
}

/**
 * Every metric of result.json, labelled once for every table people read (the run summary,
 * `--metrics all`, `diff`, `compare`, report.html). Units follow the key: `…Pct` in percent,
 * `…Days` in days, money in the account's currency.
 */
export const METRIC_FORMATS = {
  start: { label: "Start", digits: 0 },
  end: { label: "End", digits: 0 },
  durationDays: { label: "Duration (days)", digits: 1 },
  bars: { label: "Bars", digits: 0 },
  exposurePct: { label: "Exposure %", digits: 1 },
  equityFinal: { label: "Final equity", digits: 2 },
  equityPeak: { label: "Peak equity", digits: 2 },
  returnPct: { label: "Return %", digits: 2 },
  buyHoldReturnPct: { label: "Buy & hold return %", digits: 2 },
  returnAnnPct: { label: "Return (ann.) %", digits: 2 },
  volatilityAnnPct: { label: "Volatility (ann.) %", digits: 2 },
  cagrPct: { label: "CAGR %", digits: 2 },
  sharpe: { label: "Sharpe", digits: 2 },
  sortino: { label: "Sortino", digits: 2 },
  calmar: { label: "Calmar", digits: 2 },
  alphaPct: { label: "Alpha %", digits: 2 },
  beta: { label: "Beta", digits: 4 },
  maxDrawdownPct: { label: "Max drawdown %", digits: 2 },
  avgDrawdownPct: { label: "Avg drawdown %", digits: 2 },
  maxDrawdownDurationDays: { label: "Max drawdown (days)", digits: 2 },
  avgDrawdownDurationDays: { label: "Avg drawdown (days)", digits: 2 },
  trades: { label: "Trades", digits: 0 },
  winRatePct: { label: "Win rate %", digits: 1 },
  bestTradePct: { label: "Best trade %", digits: 2 },
  worstTradePct: { label: "Worst trade %", digits: 2 },
  avgTradePct: { label: "Avg trade %", digits: 2 },
  maxTradeDurationDays: { label: "Max trade (days)", digits: 2 },
  avgTradeDurationDays: { label: "Avg trade (days)", digits: 2 },
  profitFactor: { label: "Profit factor", digits: 2 },
  expectancyPct: { label: "Expectancy %", digits: 2 },
  sqn: { label: "SQN", digits: 2 },
  kellyCriterion: { label: "Kelly criterion", digits: 4 },
  commissions: { label: "Commissions", digits: 2 },
  slippage: { label: "Slippage", digits: 2 },
  periodsPerYear: { label: "Periods per year", digits: 0 },
} as const satisfies Record<keyof Metrics, MetricFormat>;

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
