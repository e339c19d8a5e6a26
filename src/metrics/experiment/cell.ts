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

/**
 * A cell's runs as one run per window: each metric's mean over the window's repeats that have a
 * figure (null when none has), as repeat 1. For a comparison with a baseline that has one run
 * per window (a deterministic code strategy): the window is then the unit of the pairs, and a
 * window's repeats do not count as independent evidence against the one baseline figure.
 */
export function windowMeans(runs: readonly ExperimentRun[]): ExperimentRun[] {
  const byWindow = new Map<string, ExperimentRun[]>();
  for (const run of runs) byWindow.set(run.window, [...(byWindow.get(run.window) ?? []), run]);
  return [...byWindow].map(([window, list]) => {
    const metrics: Partial<Record<ExperimentMetric, number | null>> = {};
    for (const metric of EXPERIMENT_METRIC_NAMES) {
      const { values } = metricValues(list, metric);
      metrics[metric] =
        values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
    }
    return { window, repeat: 1, metrics };
  });
}
