import { Command, CommanderError } from "commander";
import { registerCompareCommand } from "./cli/commands/compare-command.js";
import { registerDiffCommand } from "./cli/commands/diff-command.js";
import { registerListCommand } from "./cli/commands/list-command.js";
import { registerMemoryCommand } from "./cli/commands/memory-command.js";
import { registerPruneCommand } from "./cli/commands/prune-command.js";
import { registerQueueCommand } from "./cli/commands/queue-command.js";
import { registerRecallCommand } from "./cli/commands/recall-command.js";
import { registerReportCommand } from "./cli/commands/report-command.js";
import { registerResumeCommand } from "./cli/commands/resume-command.js";
import { registerRmCommand } from "./cli/commands/rm-command.js";
import { registerShowCommand } from "./cli/commands/show-command.js";
import { registerSweepCommand } from "./cli/commands/sweep-command.js";
import { registerWorkerCommand } from "./cli/commands/worker-command.js";
import { wantsLiveView } from "./cli/live-view-choice.js";
import { addRunOptions } from "./cli/run-options.js";
import { escapeControl } from "./util/terminal-text.js";
import { VERSION } from "./version.js";

const RUN_EXAMPLES = `
Examples:
  $ agenticbt run strategies/sma-crossover.ts --data data/GOOG.csv
  $ agenticbt run strategies/sma-crossover.ts --data data/GOOG.csv --param fast=10 --param slow=30 --commission 0.001
  $ agenticbt run strategies/rsi-reversion.ts --data data/SPY_D.csv --from 2010-01-01 --to 2014-12-31 --json
  $ agenticbt run strategies/buy-and-hold.ts --data ORCL=data/orcl-1995-2014.txt NVDA=data/nvda-1999-2014.txt
  $ OPENAI_API_KEY=sk-... agenticbt run strategies/rsi-mean-reversion.md --data data/SPY_D.csv --from 2010-01-01 --to 2010-12-31 --model gpt-4o-mini --max-cost 1
  $ agenticbt run strategies/trend-atr.md --data data/GOOG.csv --base-url http://localhost:11434/v1 --model qwen2.5:7b --every 5
  $ agenticbt run --replay 20261122-0735   # re-run a recorded LLM run offline

Exit codes: 0 success, 1 the run failed or was interrupted, 2 bad usage or bad input.
Every run is written to .agenticbt/runs/<id>/ (result.json, equity.csv, trades.csv, orders.jsonl, ...).`;

/** Errors that carry their own exit code (bad input = 2) print their message only. */
function exitCodeOf(err: unknown): number {
  if (err && typeof err === "object" && "exitCode" in err && typeof err.exitCode === "number")
    return err.exitCode;
  return 1;
}

export function buildProgram(): Command {
  const program = new Command()
    .name("agenticbt")
    .description(
      "Backtest the trader, not just the strategy: a deterministic backtest runner for LLM trading agents and code strategies.",
    )
    .version(VERSION)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();

  const run = program
    .command("run")
    .description("Backtest a strategy on OHLCV CSV data and write the run to .agenticbt/runs/<id>/")
    .argument(
      "[strategy]",
      "strategy file: strategies/<name>.ts (code) or strategies/<name>.md (LLM trader)",
    );
  addRunOptions(run);
  run.addHelpText("after", RUN_EXAMPLES).action(async (strategy: string | undefined, opts) => {
    // The live view's process boots and loads ink while this one loads the run's modules and
    // data (a core is free through most of that): the view costs the run less and shows sooner.
    const view = wantsLiveView(opts, process.stdout, process.env)
      ? (await import("./ui/live-renderer.js")).liveRenderer()
      : null;
    let beforeRun: { remove(): void } | null = null;
    if (view) {
      // A big file's loading line from the command's first moments, before the runner loads.
      const early = await import("./cli/early-loading.js");
      beforeRun = early.stopBeforeTheRun(view);
      const text = early.earlyLoadingText(opts.data);
      if (text !== null) view.earlyLoadingLine(text);
    }
    try {
      const { runCommand } = await import("./cli/run-command.js");
      process.exitCode = await runCommand(strategy, opts, view, beforeRun);
    } finally {
      beforeRun?.remove();
      // Bad input ends here before any run: the view never drew, and goes.
      await view?.close();
    }
  });

  // Each registers its options only; its action loads the report code when it runs.
  registerListCommand(program);
  registerShowCommand(program);
  registerDiffCommand(program);
  registerCompareCommand(program);
  registerSweepCommand(program);
  registerWorkerCommand(program);
  registerQueueCommand(program);
  registerRecallCommand(program);
  registerMemoryCommand(program);
  registerReportCommand(program);
  registerResumeCommand(program);
  registerRmCommand(program);
  registerPruneCommand(program);

  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are successes; every other parse error is bad usage.
      if (
        err.code === "commander.helpDisplayed" ||
        err.code === "commander.version" ||
        err.code === "commander.help"
      )
        return 0;
      return 2;
    }
    process.stderr.write(`error: ${escapeControl((err as Error).message)}\n`);
    return exitCodeOf(err);
  }
}
