import type { BootstrapOptions } from "./bootstrap.js";
import { EXPERIMENT_METRIC_NAMES, type ExperimentMetric, type ExperimentRun } from "./metrics.js";
import { type Summary, summarize } from "./summary.js";

/** A metric's summary over a cell's runs, and how many runs had no figure for it. */
export interface MetricSummary extends Summary {
  /** Runs whose figure is null, absent or not finite: left out of n. */
  missing: number;
}

/** The value of `metric` in each run that has a finite one, in the runs' order. */
export function metricValues(
  runs: readonly ExperimentRun[],
  metric: ExperimentMetric,
): { values: number[]; missing: number } {
  const values: number[] = [];
  for (const run of runs) {
    const v = run.metrics[metric];
    if (typeof v === "number" && Number.isFinite(v)) values.push(v);
  }
  return { values, missing: runs.length - values.length };
}

/**
 * Every experiment metric of one cell across its windows × repeats. Each metric's interval uses
 * the same seed, so two cells with the same number of runs are resampled on the same indices.
 */
export function summarizeCell(
  runs: readonly ExperimentRun[],
  options?: BootstrapOptions,
): Record<ExperimentMetric, MetricSummary> {
  const out = {} as Record<ExperimentMetric, MetricSummary>;
  for (const metric of EXPERIMENT_METRIC_NAMES) {
    const { values, missing } = metricValues(runs, metric);
    out[metric] = { ...summarize(values, options), missing };
  }
  return out;
}
