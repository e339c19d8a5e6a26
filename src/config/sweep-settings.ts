import { choice, list, num, optionalNum, switchOf, text, textWithDefault } from "./setting.js";

// The settings of `agenticbt sweep` beside the run's (run-settings.ts): flag, default, range and
// help once. Every run setting applies to every combination; these say which combinations run.

/** How the combinations are chosen: every one of the grid, or a seeded sample of it. */
export const SWEEP_METHODS = ["grid", "random"] as const;
export type SweepMethod = (typeof SWEEP_METHODS)[number];

/** The metric a sweep maximizes when neither --maximize nor --minimize is given. */
export const DEFAULT_OBJECTIVE = "sharpe";

/** CSCV's blocks (S) when --cscv-blocks is not given: C(16, 8) = 12,870 splits. */
export const DEFAULT_CSCV_BLOCKS = 16;

export const SWEEP_SETTINGS = {
  grid: list({
    default: undefined,
    group: "run",
    flag: "--grid",
    arg: "<name=values>",
    help: "an axis: a strategy parameter or a broker setting by its flag (commission, slippage, allow-short, max-position-weight...), with values a,b,c or start:stop:step (stop included when reached); for an LLM strategy (.md): model, strategy, memory or any run/agent flag (temperature, every...); repeatable",
  }),
  constraint: text({
    group: "run",
    flag: "--constraint",
    arg: "<expr>",
    help: 'keep only the combinations where this holds, e.g. "fast < slow" (arithmetic, comparisons, and/or/not over the axis names)',
  }),
  maximize: textWithDefault({
    group: "run",
    flag: "--maximize",
    arg: "<metric>",
    help: "the metric to maximize (a key of result.json's metrics)",
    default: DEFAULT_OBJECTIVE,
  }),
  minimize: text({
    group: "run",
    flag: "--minimize",
    arg: "<metric>",
    help: "the metric to minimize instead (maxDrawdownPct is negative: maximize it to shrink drawdowns)",
  }),
  method: choice({
    choices: SWEEP_METHODS,
    default: "grid",
    group: "run",
    flag: "--method",
    arg: "<grid|random>",
    help: "every combination, or --max-tries of them drawn at random (--seed)",
  }),
  maxTries: optionalNum({
    group: "run",
    flag: "--max-tries",
    arg: "<n>",
    help: "--method random: how many combinations to draw (without repeats)",
    min: 1,
    integer: true,
  }),
  seed: num({
    group: "run",
    flag: "--seed",
    arg: "<n>",
    help: "--method random: the draw's seed (the same seed draws the same combinations); an LLM experiment: repeat r sends the model seed + r - 1",
    default: 1,
    min: 0,
    integer: true,
  }),
  jobs: optionalNum({
    group: "run",
    flag: "--jobs",
    arg: "<n>",
    help: "worker threads (default the number of cores); an LLM experiment: runs in flight (default --concurrency when given, else 1)",
    min: 1,
    max: 256,
    integer: true,
  }),
  cscvBlocks: num({
    group: "run",
    flag: "--cscv-blocks",
    arg: "<s>",
    help: "blocks the bars are cut into for the Probability of Backtest Overfitting (CSCV): an even number; C(s, s/2) splits",
    default: DEFAULT_CSCV_BLOCKS,
    min: 2,
    max: 30,
    integer: true,
  }),
  walkForward: text({
    group: "run",
    flag: "--walk-forward",
    arg: "<spec>",
    help: "also walk forward: train=<n>,test=<n>[,anchored], n in bars (500) or a duration (2y, 6m, 30d); the best settings of each training span are tested on the span after it",
  }),
  windows: text({
    group: "run",
    flag: "--windows",
    arg: "<from:to,...>",
    help: "an LLM experiment: the windows every cell runs on, e.g. 2012-01-01:2012-06-30,2012-07-01:2012-12-31, or rolling:6m (consecutive 6-month windows over --from..--to or the data; default: one, --from to --to)",
  }),
  repeats: num({
    group: "run",
    flag: "--repeats",
    arg: "<n>",
    help: "an LLM experiment: runs of each cell on each window, each repeat with its own model seed",
    default: 1,
    min: 1,
    max: 1000,
    integer: true,
  }),
  baseline: text({
    group: "run",
    flag: "--baseline",
    arg: "<strategy.ts>",
    help: "an LLM experiment: a code strategy run once on each window (it is deterministic) beside the cells, and each cell compared with it",
  }),
  budgetUsd: optionalNum({
    group: "run",
    flag: "--budget-usd",
    arg: "<usd>",
    help: "an LLM experiment: no run starts once the spend so far plus the estimate of the runs in flight and the next would pass it",
    above: 0,
  }),
  yes: switchOf({
    group: "run",
    flag: "--yes",
    help: "an LLM experiment: start without asking (the estimate of its calls, tokens and $ is printed first); required when stdin is not a terminal",
  }),
  replay: text({
    group: "run",
    flag: "--replay",
    arg: "<sweep>",
    help: "re-run an LLM experiment from its runs' transcripts, with zero network calls",
  }),
  top: num({
    group: "run",
    flag: "--top",
    arg: "<k>",
    help: "write full run directories (as `agenticbt run` does) for the k best combinations",
    default: 0,
    min: 0,
    integer: true,
  }),
};
