import { METRIC_FORMATS } from "../metric-labels.js";

/**
 * The figures an experiment summarises per cell and compares with the baseline, how they are
 * named, and how the sentence in words speaks of them. Every difference is cell − baseline.
 */
export interface ExperimentMetricSpec {
  label: string;
  /** "layered {higher} none on 5 of 6 windows": what cell > baseline on a pair means. */
  higher: string;
  /** Written before the number in the sentence ("$"), and after it ("%", " tokens"). */
  prefix: string;
  suffix: string;
}

export const EXPERIMENT_METRICS = {
  returnPct: { label: METRIC_FORMATS.returnPct.label, higher: "beat", prefix: "", suffix: "%" },
  sharpe: {
    label: METRIC_FORMATS.sharpe.label,
    higher: "had a higher Sharpe than",
    prefix: "",
    suffix: "",
  },
  maxDrawdownPct: {
    // Drawdowns are negative percentages: higher is shallower.
    label: METRIC_FORMATS.maxDrawdownPct.label,
    higher: "had a shallower max drawdown than",
    prefix: "",
    suffix: "%",
  },
  trades: {
    label: METRIC_FORMATS.trades.label,
    higher: "traded more than",
    prefix: "",
    suffix: " trades",
  },
  turnover: { label: "Turnover", higher: "turned over more than", prefix: "", suffix: "" },
  tokens: { label: "Tokens", higher: "used more tokens than", prefix: "", suffix: " tokens" },
  costUsd: { label: "Cost $", higher: "cost more than", prefix: "$", suffix: "" },
} as const satisfies Record<string, ExperimentMetricSpec>;

export type ExperimentMetric = keyof typeof EXPERIMENT_METRICS;

export const EXPERIMENT_METRIC_NAMES = Object.keys(EXPERIMENT_METRICS) as ExperimentMetric[];

/**
 * One run of an experiment, as plain figures. `window` names the period (and data) the run saw;
 * a cell and its baseline are paired on (window, repeat). A metric that is null or absent (an
 * unknown price, an undefined Sharpe) is left out of that metric's statistics and counted as
 * missing.
 */
export interface ExperimentRun {
  window: string;
  repeat: number;
  metrics: Partial<Record<ExperimentMetric, number | null>>;
}
