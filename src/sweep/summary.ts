import type { Metrics } from "../metrics/types.js";
import type { Combination } from "./axes.js";
import type { CombinationOutcome } from "./run-combination.js";
import type { SearchStatistics } from "./search-statistics.js";

/** The metric a sweep optimizes, and which way. */
export interface Objective {
  metric: keyof Metrics;
  direction: "maximize" | "minimize";
}

/** summary.json. */
export interface SweepSummary {
  total: number;
  /** Combinations run: completed, failed, or ended early by the strategy (stopped…). */
  done: number;
  completed: number;
  failed: number;
  objective: Objective;
  best: { index: number; settings: Combination; value: number; metrics: Metrics } | null;
  statistics: SearchStatistics;
}

/** The objective's value of an outcome, or null (failed, or the metric is null). */
export function objectiveValue(o: CombinationOutcome, objective: Objective): number | null {
  if (o.status !== "completed" || o.metrics === null) return null;
  const v = o.metrics[objective.metric];
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

/** Whether `a` beats `b` on the objective (ties go to the lower index: the grid's first). */
export function better(
  a: { index: number; value: number },
  b: { index: number; value: number } | null,
  objective: Objective,
): boolean {
  if (b === null) return true;
  if (a.value === b.value) return a.index < b.index;
  return objective.direction === "maximize" ? a.value > b.value : a.value < b.value;
}

/** The outcomes ranked best first (those without a value last, by index). */
export function ranked(
  outcomes: readonly CombinationOutcome[],
  objective: Objective,
): CombinationOutcome[] {
  const keyed = outcomes.map((o) => ({ o, value: objectiveValue(o, objective) }));
  keyed.sort((x, y) => {
    if (x.value === null || y.value === null)
      return x.value === null && y.value === null
        ? x.o.index - y.o.index
        : x.value === null
          ? 1
          : -1;
    if (x.value === y.value) return x.o.index - y.o.index;
    return objective.direction === "maximize" ? y.value - x.value : x.value - y.value;
  });
  return keyed.map((k) => k.o);
}

/** summary.json from the outcomes so far (`statisticsOf`: the search's statistics, given the
 * index of the best combination). */
export function summarize(
  outcomes: readonly CombinationOutcome[],
  total: number,
  objective: Objective,
  statisticsOf: (best: number | null) => SearchStatistics,
): SweepSummary {
  const top = ranked(outcomes, objective)[0];
  const value = top ? objectiveValue(top, objective) : null;
  const best =
    top && value !== null && top.metrics
      ? { index: top.index, settings: top.settings, value, metrics: top.metrics }
      : null;
  let completed = 0;
  let failed = 0;
  for (const o of outcomes) {
    if (o.status === "completed") completed++;
    else if (o.status === "failed") failed++;
  }
  return {
    total,
    done: outcomes.length,
    completed,
    failed,
    objective,
    best,
    statistics: statisticsOf(best?.index ?? null),
  };
}
