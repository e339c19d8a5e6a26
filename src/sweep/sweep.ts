import { checkKeys, checkSetting } from "../config/check-setting.js";
import { SWEEP_SETTINGS } from "../config/sweep-settings.js";
import { UsageError } from "../errors/usage-error.js";
import { checkCscvBlocks } from "../metrics/overfitting/pbo.js";
import type { BacktestOptions } from "../runner/backtest.js";
import { inputData } from "../runner/backtest.js";
import { checkBroker, checkDataWindow } from "../runner/library-settings.js";
import { loadStrategy, strategyFrom } from "../runner/load-strategy.js";
import type { Params, Strategy } from "../strategy/types.js";
import type { Combination } from "./axes.js";
import type { AxisValue } from "./constraint.js";
import { executeSweep, type SweepHandle } from "./execute.js";
import { parseGridValues } from "./grid-values.js";
import { checkObjective, jobsOf, prepareSweep } from "./plan.js";
import type { CombinationOutcome } from "./run-combination.js";
import { barReturns, SearchTrials } from "./search-statistics.js";
import { better, objectiveValue, type SweepSummary, summarize } from "./summary.js";
import { checkWalkForward, type WalkForwardResult, walkForward } from "./walk-forward.js";

export type { CombinationOutcome } from "./run-combination.js";
export type { SweepSummary } from "./summary.js";
export type { WalkForwardResult } from "./walk-forward.js";

/** `sweep()`'s options: `backtest()`'s (every one applies to every combination) and the search's,
 * checked through the same settings schema as `agenticbt sweep`'s flags. */
export interface SweepOptions<S = unknown>
  extends Omit<BacktestOptions<S>, "memoryDir" | "onEvent" | "onStart" | "fees"> {
  /** Each axis's values: an array, or the command line's text (`"5:50:5"`, `"0,0.001"`). An axis is
   * a strategy parameter or a broker setting (`commission` or `commissionRate`, `allow-short`…). */
  grid: Readonly<Record<string, readonly AxisValue[] | string>>;
  /** Keep only the combinations where this holds: a function, or `--constraint`'s expression. */
  constraint?: ((combination: Readonly<Combination>) => boolean) | string;
  /** The metric to maximize (default sharpe), or to minimize instead. */
  maximize?: string;
  minimize?: string;
  method?: "grid" | "random";
  maxTries?: number;
  seed?: number;
  /** Blocks of the Probability of Backtest Overfitting's CSCV (default 16; even, 2 to 30). */
  cscvBlocks?: number;
  /** Also walk forward: `"train=500,test=100"` (bars or 2y, 6m, 30d; `,anchored`), as
   * `agenticbt sweep --walk-forward`. */
  walkForward?: string;
  /** Threads (default the cores); a strategy object runs in this thread alone. */
  jobs?: number;
  /** Each combination's outcome as it arrives (in no fixed order), with its equity at each close. */
  onResult?: (result: CombinationOutcome, equity: Float64Array | null) => void;
  /** Receives a handle before the first combination: `stop()` runs no more. */
  onStart?: (handle: SweepHandle) => void;
}

/** What `sweep()` returns: every combination's outcome (by index), the summary of the search. */
export interface SweepOutput {
  results: CombinationOutcome[];
  summary: SweepSummary;
  /** Whether it was stopped (`onStart`'s handle) before every combination ran. */
  stopped: boolean;
  /** The walk-forward's windows and stitched figures (null: not asked for, or stopped). */
  walkForward: WalkForwardResult | null;
}

const OPTION_KEYS = [
  "strategy",
  "data",
  "broker",
  "params",
  "from",
  "to",
  "strict",
  "tz",
  "grid",
  "constraint",
  "maximize",
  "minimize",
  "method",
  "maxTries",
  "seed",
  "cscvBlocks",
  "walkForward",
  "jobs",
  "onResult",
  "onStart",
];

/**
 * A sweep in memory, as `agenticbt sweep` runs one but with no directory: each combination
 * through the same core as `run` (metrics identical to `backtest()` with its settings), on
 * worker threads when the strategy is a file.
 */
export async function sweep<S>(options: SweepOptions<S>): Promise<SweepOutput> {
  checkKeys("sweep() option", options, OPTION_KEYS);
  const path = typeof options.strategy === "string" ? options.strategy : null;
  const strategy: Strategy<unknown> =
    path !== null
      ? await loadStrategy(path)
      : strategyFrom(options.strategy, "sweep(): the `strategy` option is not a strategy");
  const broker = checkBroker(options.broker);
  const window = checkDataWindow(options);
  const method = checkSetting(SWEEP_SETTINGS.method, options.method, "method");
  const maxTries = checkSetting(SWEEP_SETTINGS.maxTries, options.maxTries ?? null, "maxTries");
  const seed = checkSetting(SWEEP_SETTINGS.seed, options.seed, "seed");
  const jobs = jobsOf(options.jobs ?? null);
  const cscvBlocks = checkSetting(SWEEP_SETTINGS.cscvBlocks, options.cscvBlocks, "cscvBlocks");
  const wf = checkSetting(SWEEP_SETTINGS.walkForward, options.walkForward ?? null, "walkForward");
  checkCscvBlocks(cscvBlocks);
  if (options.maximize !== undefined && options.minimize !== undefined)
    throw new UsageError("sweep(): maximize and minimize both given: keep one.");
  const objective = checkObjective(options.maximize ?? null, options.minimize ?? null);
  const grid = Object.entries(options.grid ?? {}).map(([name, given]) => {
    if (typeof given === "string") {
      const g = parseGridValues(name, given);
      return { name, values: g.kind === "range" ? g.numbers : g.texts };
    }
    if (!Array.isArray(given))
      throw new UsageError(
        `sweep(): grid.${name} must be an array of values or a text like "5:50:5".`,
      );
    return { name, values: [...given] };
  });
  const c = options.constraint;
  if (c !== undefined && typeof c !== "string" && typeof c !== "function")
    throw new UsageError("sweep(): constraint must be a function or an expression text.");
  const loaded = inputData(options.data, window);
  const prepared = prepareSweep({
    data: loaded.data,
    startIndex: loaded.startIndex,
    dataInfo: loaded.files,
    warnings: loaded.warnings,
    strategy,
    strategyPath: path,
    run: { broker, params: (options.params ?? {}) as Params, hookTimeoutMs: undefined },
    search: { grid, constraint: c ?? null, objective, method, maxTries, seed },
  });
  if (wf !== null) checkWalkForward(wf, prepared);
  const results: CombinationOutcome[] = [];
  // Each series is summarised as it arrives; only the best so far's returns are kept (for PSR).
  const trials = new SearchTrials(cscvBlocks);
  let best: { index: number; value: number; returns: Float64Array } | null = null;
  const { stopped } = await executeSweep(prepared, {
    jobs,
    strategyPath: path,
    ...(options.onStart ? { onStart: options.onStart } : {}),
    onRun: ({ outcome, equity }) => {
      results.push(outcome);
      if (equity !== null && outcome.status === "completed") {
        const returns = barReturns(equity);
        trials.add(outcome.index, returns);
        const value = objectiveValue(outcome, objective);
        if (value !== null && better({ index: outcome.index, value }, best, objective))
          best = { index: outcome.index, value, returns };
      }
      options.onResult?.(outcome, equity);
    },
  });
  results.sort((a, b) => a.index - b.index);
  const walked =
    wf === null || stopped
      ? null
      : await walkForward(prepared, {
          spec: wf,
          jobs,
          strategyPath: path,
          ...(options.onStart ? { onStart: options.onStart } : {}),
        });
  return {
    walkForward: walked?.result ?? null,
    results,
    summary: summarize(results, prepared.combos.length, objective, (index) =>
      trials.statistics(
        results.length,
        index,
        index !== null && best?.index === index ? best.returns : null,
      ),
    ),
    stopped,
  };
}
