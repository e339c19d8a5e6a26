import type { Command } from "commander";
import { QUEUE_SETTINGS } from "../../config/queue-settings.js";
import {
  AGENT_SETTINGS,
  BROKER_SETTINGS,
  DATA_SETTINGS,
  MEMORY_SETTINGS,
  OUTPUT_SETTINGS,
  RECALL_SETTINGS,
  RISK_SETTINGS,
  RUN_SETTINGS,
} from "../../config/run-settings.js";
import type { Setting } from "../../config/setting.js";
import { SWEEP_SETTINGS } from "../../config/sweep-settings.js";
import { addSettingOptions, addSomeRunOptions } from "../run-options.js";

// Only commander and the settings at import time: the sweep's modules load in the action.

const EXAMPLES = `
Examples:
  $ agenticbt sweep strategies/sma-crossover.ts --data data/GOOG.csv --param longShort=true --allow-short --commission 0.002 \\
      --grid fast=5:50:5 --grid slow=10:200:10 --constraint "fast < slow" --maximize sharpe
  $ agenticbt sweep strategies/sma-crossover.ts --data data/GOOG.csv --grid fast=10,20 --grid commission=0,0.001,0.002 --top 3
  $ agenticbt sweep strategies/rsi-reversion.ts --data data/SPY_D.csv --grid period=5:30:1 --method random --max-tries 50 --seed 7
  $ agenticbt sweep strategies/sma-crossover.ts --data data/GOOG.csv --grid fast=5:50:5 --grid slow=10:200:10 \\
      --constraint "fast < slow" --walk-forward train=500,test=100
  $ agenticbt sweep strategies/rsi-mean-reversion.md --data data/GOOG.csv --grid memory=none,files,layered,persistent \\
      --windows 2012-01-01:2012-06-30,2012-07-01:2012-12-31 --repeats 3
  $ agenticbt sweep --replay <sweep-id>
  $ agenticbt sweep strategies/sma-crossover.ts --data data/GOOG.csv --grid fast=5:50:5 --grid slow=10:200:10 \\
      --constraint "fast < slow" --queue redis://127.0.0.1:6379   # on \`agenticbt worker\` processes

An axis is a strategy parameter or a broker setting (its flag without --: commission, slippage,
allow-short, max-position-weight...). Every other option applies to every combination, as it
does to \`agenticbt run\`. Each combination runs in memory through run's own core: its metrics are
those \`agenticbt run\` gives for the same settings. The sweep is written to
.agenticbt/sweeps/<id>/ (config.json, results.jsonl, summary.json, report.html); a sweep stopped
or killed goes on with \`agenticbt resume <id>\`, running only the combinations it lacks. Every
sweep reports the best's Probabilistic and Deflated Sharpe Ratios and the Probability of Backtest
Overfitting (docs/sweep.md).
An LLM strategy (.md) makes an experiment (docs/experiments.md): every cell (model, strategy,
memory, any run or agent setting) × window × repeat is a full run directory, and summary.json
compares each cell with its memory=none baseline (mean difference, bootstrap CI, sign-flip p
adjusted by Benjamini-Hochberg), with --baseline strategies/x.ts (a code strategy run once per
window), and buy-and-hold on each window; and gives the best cell's Deflated Sharpe Ratio.
Exit codes: 0 success, 1 every combination failed or the sweep was interrupted, 2 bad usage.`;

/** The agent's settings an LLM experiment takes: all but those the sweep has its own of (--seed,
 * --replay) and --prompt (a cell's strategy is a file). */
const {
  seed: _seed,
  replay: _replay,
  prompt: _prompt,
  ...EXPERIMENT_AGENT_SETTINGS
} = AGENT_SETTINGS;

/** run's settings a sweep takes (an agent's for an LLM experiment). */
const RUN_GROUPS: readonly Readonly<Record<string, Setting>>[] = [
  EXPERIMENT_AGENT_SETTINGS,
  DATA_SETTINGS,
  BROKER_SETTINGS,
  RISK_SETTINGS,
  RUN_SETTINGS,
  MEMORY_SETTINGS,
  RECALL_SETTINGS,
  OUTPUT_SETTINGS,
];

export function registerSweepCommand(program: Command): void {
  const sweep = program
    .command("sweep")
    .description(
      "Run a strategy over a grid of parameters and settings, in memory and in parallel, and write .agenticbt/sweeps/<id>/",
    )
    .argument(
      "[strategy]",
      "strategy file: strategies/<name>.ts (a code sweep) or strategies/<name>.md (an LLM experiment)",
    );
  addSettingOptions(sweep, SWEEP_SETTINGS);
  addSettingOptions(sweep, { queue: QUEUE_SETTINGS.queue });
  addSomeRunOptions(
    sweep,
    RUN_GROUPS.flatMap((g) => Object.values(g)),
  );
  sweep
    .addHelpText("after", EXAMPLES)
    .action(async (strategy: string | undefined, opts: Record<string, unknown>) => {
      const { sweepCommand } = await import("../sweep-run-command.js");
      process.exitCode = await sweepCommand(strategy, opts);
    });
}
