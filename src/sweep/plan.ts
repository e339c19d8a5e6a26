import os from "node:os";
import { checkSetting } from "../config/check-setting.js";
import { SWEEP_SETTINGS, type SweepMethod } from "../config/sweep-settings.js";
import type { MarketData } from "../engine/types.js";
import { UsageError } from "../errors/usage-error.js";
import { METRIC_FORMATS } from "../metrics/metric-labels.js";
import type { Metrics } from "../metrics/types.js";
import type { DataFileInfo } from "../rundir/run-result.js";
import { DEFAULT_HOOK_TIMEOUT_S } from "../runner/hook-timeout.js";
import { resolveParams } from "../runner/resolve-params.js";
import type { RunConfig } from "../runner/run-config.js";
import type { Params, Strategy } from "../strategy/types.js";
import { didYouMean } from "../util/did-you-mean.js";
import { type Axis, type Combination, checkDistinctAxes, resolveAxis } from "./axes.js";
import { combinations } from "./combinations.js";
import { type AxisValue, type Constraint, parseConstraint } from "./constraint.js";
import type { SweepBase } from "./run-combination.js";
import { sharedMarketData } from "./shared-data.js";
import type { Objective } from "./summary.js";

/** The search, as config.json records it: a resume makes the same combinations from it. */
export interface SearchSettings {
  /** Each axis's name and its values, typed (in the order given: the first varies slowest). */
  grid: { name: string; values: AxisValue[] }[];
  /** The `--constraint` expression (the library's function is not recorded). */
  constraint: string | null;
  objective: Objective;
  method: SweepMethod;
  maxTries: number | null;
  seed: number;
}

/** The metrics an objective may name: result.json's numeric ones. */
export const OBJECTIVE_METRICS = Object.keys(METRIC_FORMATS) as (keyof Metrics)[];

/** `--maximize` / `--minimize` checked: one of them, naming a metric of result.json. */
export function checkObjective(maximize: string | null, minimize: string | null): Objective {
  const metric = minimize ?? maximize ?? SWEEP_SETTINGS.maximize.default;
  const flag = minimize !== null ? "--minimize" : "--maximize";
  if (!(OBJECTIVE_METRICS as string[]).includes(metric)) {
    const guess = didYouMean(metric, OBJECTIVE_METRICS);
    throw new UsageError(
      `${flag} ${JSON.stringify(metric)} is not a metric${guess ? ` (did you mean ${guess}?)` : ""}. Metrics: ${OBJECTIVE_METRICS.join(", ")}.`,
    );
  }
  return {
    metric: metric as keyof Metrics,
    direction: minimize !== null ? "minimize" : "maximize",
  };
}

/** `--jobs`, or the number of cores. */
export function jobsOf(jobs: number | null | undefined): number {
  return checkSetting(SWEEP_SETTINGS.jobs, jobs ?? null, "--jobs") ?? os.availableParallelism();
}

/** Everything a sweep needs to run its combinations. */
export interface PreparedSweep {
  data: MarketData;
  dataInfo: DataFileInfo[];
  warnings: string[];
  strategy: Strategy<unknown>;
  base: SweepBase;
  axes: Axis[];
  combos: Combination[];
  objective: Objective;
}

/** The axes, constraint and combinations over a strategy's parameters (its defaults type them). */
export function planSearch(
  search: Omit<SearchSettings, "constraint"> & { constraint: string | Constraint | null },
  paramDefaults: Params,
): { axes: Axis[]; combos: Combination[] } {
  if (search.grid.length === 0)
    throw new UsageError("No axis: pass --grid name=values (e.g. --grid fast=5:50:5).");
  const axes = search.grid.map((g) => resolveAxis(g.name, g.values, paramDefaults));
  checkDistinctAxes(axes);
  const c = search.constraint;
  const constraint =
    typeof c === "string"
      ? parseConstraint(
          c,
          axes.map((a) => a.name),
        )
      : (c ?? null);
  return { axes, combos: combinations(axes, constraint, search) };
}

/**
 * The shared part of a prepared sweep: the data in shared memory, and the settings every
 * combination starts from (`run`'s, checked as `run` checks them).
 */
export function prepareSweep(p: {
  data: MarketData;
  startIndex: number;
  dataInfo: DataFileInfo[];
  warnings: string[];
  strategy: Strategy<unknown>;
  strategyPath: string | null;
  run: Pick<RunConfig, "broker" | "params" | "hookTimeoutMs">;
  search: Omit<SearchSettings, "constraint"> & { constraint: string | Constraint | null };
}): PreparedSweep {
  const defaults = p.strategy.params ?? {};
  // The --param values every combination starts from: a bad one is refused before any runs.
  resolveParams(defaults, p.run.params);
  const { axes, combos } = planSearch(p.search, defaults);
  const hook = p.run.hookTimeoutMs;
  return {
    data: sharedMarketData(p.data),
    dataInfo: p.dataInfo,
    warnings: p.warnings,
    strategy: p.strategy,
    base: {
      startIndex: p.startIndex,
      broker: p.run.broker,
      params: p.run.params,
      hookTimeoutMs: hook === undefined ? DEFAULT_HOOK_TIMEOUT_S * 1000 : hook,
      strategyPath: p.strategyPath,
    },
    axes,
    combos,
    objective: p.search.objective,
  };
}
