import { Command, CommanderError, Option } from "commander";
import { registerCompareCommand } from "./cli/commands/compare-command.js";
import { registerDiffCommand } from "./cli/commands/diff-command.js";
import { registerListCommand } from "./cli/commands/list-command.js";
import { registerPruneCommand } from "./cli/commands/prune-command.js";
import { registerRecallCommand } from "./cli/commands/recall-command.js";
import { registerReportCommand } from "./cli/commands/report-command.js";
import { registerResumeCommand } from "./cli/commands/resume-command.js";
import { registerRmCommand } from "./cli/commands/rm-command.js";
import { DEFAULT_RUNS_DIR } from "./cli/commands/runs-root.js";
import { registerShowCommand } from "./cli/commands/show-command.js";
import { wantsLiveView } from "./cli/live-view-choice.js";
import { parseDecimal } from "./data/parse-decimal.js";
import { DEFAULT_MAX_RETRY_WAIT_MS } from "./util/backoff.js";
import { escapeControl } from "./util/terminal-text.js";
import { VERSION } from "./version.js";

const collect = (value: string, previous: string[] = []) => [...previous, value];

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

  program
    .command("run")
    .description("Backtest a strategy on OHLCV CSV data and write the run to .agenticbt/runs/<id>/")
    .argument(
      "[strategy]",
      "strategy file: strategies/<name>.ts (code) or strategies/<name>.md (LLM trader)",
    )
    .option(
      "-d, --data <csv...>",
      "OHLCV CSV file(s); SYM=path names the symbol (default: file name)",
    )
    .option("--cash <amount>", "initial cash", "10000")
    .option("--commission <rate>", "commission as a fraction of notional, e.g. 0.001 = 0.1%", "0")
    .option(
      "--commission-fixed <amount>",
      "fixed commission per order (charged on its first fill)",
      "0",
    )
    .option(
      "--slippage <rate>",
      "adverse slippage as a fraction of price (market and stop fills)",
      "0",
    )
    .option("--slippage-ticks <n>", "adverse slippage in ticks instead of a fraction")
    .option("--tick-size <size>", "price tick for --slippage-ticks", "0.01")
    .option(
      "--trade-on-close",
      "fill market orders at the decision bar's close instead of the next open",
    )
    .option("--fractional", "allow fractional units (crypto, FX)")
    .option("--allow-short", "allow short positions (margin-checked)")
    .option(
      "--short-margin <fraction>",
      "margin held against shorts, as a fraction of their notional",
      "0.5",
    )
    .option(
      "--volume-cap <fraction>",
      "fill at most this fraction of a bar's volume; the rest stays working",
    )
    .option("--max-position-weight <fraction>", "risk limit: max |position| / equity per symbol")
    .option("--max-open-positions <n>", "risk limit: max number of open positions")
    .option("--max-gross-exposure <fraction>", "risk limit: max (long + short) / equity")
    .option(
      "--halt-drawdown <fraction>",
      "flatten and stop trading once drawdown reaches this fraction",
    )
    .option("--from <date>", "first bar to trade (earlier bars are history for indicators)")
    .option("--to <date>", "last bar (later bars are not loaded)")
    .option("-p, --param <key=value>", "strategy parameter (repeatable)", collect)
    .option("--name <name>", "run name (default: the strategy's name)")
    .option("--runs-dir <dir>", "where run directories go", DEFAULT_RUNS_DIR)
    .option("--strict", "reject unsorted data instead of sorting it with a warning")
    .option(
      "--hook-timeout <seconds>",
      "fail the run when a strategy hook's promise stays pending this long (default 600 for code strategies, none for LLM ones)",
    )
    .option(
      "--tz <zone>",
      "IANA time zone that timestamps with a UTC offset, and epoch timestamps, are converted to",
    )
    .option("--time-unit <s|ms>", "unit of epoch timestamps (default: detected from the digits)")
    .option(
      "--date-format <format>",
      "day-first or month-first dates, e.g. DD/MM/YYYY or MM/DD/YYYY HH:MM",
    )
    .option(
      "--columns <key=header,...>",
      "map header names: keys date, time, open, high, low, close, volume",
    )
    .option(
      "--preset <target=path>",
      "seed a memory file before the run, e.g. notes/experience.md=./exp.md (repeatable)",
      collect,
    )
    .option(
      "--memory <names>",
      "memory system: files (default), layered, …; a comma list runs one backtest per system and compares them",
    )
    .option(
      "--memory-namespace <name>",
      "persistent memory: the store .agenticbt/memory/<name>/ (default: default)",
    )
    .option(
      "--policy-overrides <file.json>",
      "memory policy values over agenticbt.config.json's memory block (retrieve_limit, recent_days, …)",
    )
    .option("--memory-from <run>", "start from another run's playbook, notes and reviews")
    .option("--embed-model <name>", "hybrid recall: embeddings model (BM25 alone without it)")
    .option("--embed-base-url <url>", "hybrid recall: OpenAI-compatible /embeddings endpoint")
    .option("--recall-weights <fts,vec>", "hybrid recall weights w_fts,w_vec", "0.5,0.5")
    .option(
      "--recall-min-score <s>",
      "drop citations scoring below this, 0..1 (default 0.1 with --embed-model, else 0)",
    )
    .option(
      "--recall-half-life <days>",
      "extra decay of older memories by age, on top of the tiers",
    )
    .optionsGroup("LLM trader (strategies/*.md or --prompt):")
    .option("--prompt <text>", "an inline strategy prompt instead of a .md file")
    .option("-m, --model <name>", "model name (default gpt-4o-mini, or $AGENTICBT_MODEL)")
    .option(
      "--base-url <url>",
      "OpenAI-compatible endpoint (default $OPENAI_BASE_URL or OpenAI); the key is read from $OPENAI_API_KEY",
    )
    .option("--temperature <t>", "sampling temperature")
    .option("--seed <n>", "sampling seed, for providers that honour it")
    .option("--max-output-tokens <n>", "max tokens per model answer")
    .option("--timeout <ms>", "request timeout in milliseconds", "60000")
    .option(
      "--max-retries <n>",
      "retries on 429, 5xx and timeouts (exponential backoff, honours Retry-After)",
      "4",
    )
    .option(
      "--max-retry-wait <seconds>",
      `longest wait before a model call's retry, default ${DEFAULT_MAX_RETRY_WAIT_MS / 1000}; a server asking for more (Retry-After) ends the run interrupted, to resume later`,
    )
    .option("--concurrency <n>", "max model requests in flight", "4")
    .option("--max-steps <n>", "max model calls per decision (the tool loop's bound)", "8")
    .option(
      "--max-failed-decisions <n>",
      "fail the run after this many failed decisions in a row (model errors, empty replies)",
      "3",
    )
    .option("--every <n>", "decide every n bars", "1")
    .option("--context-bars <n>", "bars of each symbol shown in every decision's context", "20")
    .option(
      "--moments <list>",
      "memory moments: any of eod,fill,close,week,month,run_end (default all)",
    )
    .option("--no-moments", "no memory moments")
    .option(
      "--max-tokens <n>",
      "stop the run cleanly once this many tokens are used (status budget_exhausted)",
    )
    .option("--max-cost <usd>", "stop the run cleanly once the estimated cost reaches this (USD)")
    .option("--prices <file>", "JSON price table overriding the built-in one (USD per 1M tokens)")
    .option("--no-cache", "do not answer identical requests from the response cache")
    .option("--cache-dir <dir>", "the response cache's directory (default .agenticbt/cache)")
    .option(
      "--replay <run>",
      "re-run a recorded LLM run from its transcript, with zero network calls",
    )
    .option(
      "--checkpoint-every <bars>",
      "bars between checkpoints for `agenticbt resume` (default 1 for an LLM agent, 1000 for code)",
    )
    .option(
      "--anonymize",
      "the model sees ASSET_A… for tickers, dates moved to 2300 and prices rebased to 100 (results stay real)",
    )
    .option(
      "--model-cutoff <date>",
      "the model's training cut-off (YYYY-MM-DD); default: a built-in table of common models",
    )
    .optionsGroup("Output:")
    .addOption(new Option("--json", "print result.json alone on stdout"))
    .option("-q, --quiet", "no progress output")
    .addOption(
      new Option(
        "--metrics <set>",
        "metrics in the summary: the headline 12, or all of result.json's",
      )
        .choices(["headline", "all"])
        .default("headline"),
    )
    .option("--ui", "live view on a terminal (the default; plain lines when not a TTY or in CI)")
    .option("--no-ui", "plain progress lines (start, every 5 s, warnings, end), even on a terminal")
    .addHelpText("after", RUN_EXAMPLES)
    .action(async (strategy: string | undefined, opts) => {
      // The live view's process boots and loads ink while this one loads the run's modules and
      // data (a core is free through most of that): the view costs the run less and shows sooner.
      const view = wantsLiveView(opts, process.stdout, process.env)
        ? (await import("./ui/live-renderer.js")).liveRenderer()
        : null;
      try {
        const { runCommand } = await import("./cli/run-command.js");
        process.exitCode = await runCommand(strategy, opts, view);
      } finally {
        // Bad input ends here before any run: the view never drew, and goes.
        await view?.close();
      }
    });

  // Each registers its options only; its action loads the report code when it runs.
  registerListCommand(program);
  registerShowCommand(program);
  registerDiffCommand(program);
  registerCompareCommand(program);
  registerRecallCommand(program);
  registerReportCommand(program);
  registerResumeCommand(program);
  registerRmCommand(program);
  registerPruneCommand(program);

  for (const command of program.commands) numbersShownPlain(command);
  return program;
}

/**
 * Numeric options are parsed from their text (decimal notation only), so their defaults are
 * strings; help shows them as the numbers they are: `(default: 10000)`, not `(default: "10000")`.
 */
function numbersShownPlain(command: Command): void {
  for (const option of command.options) {
    const d: unknown = option.defaultValue;
    const plain = typeof d === "string" && Number.isFinite(parseDecimal(d));
    if (plain && option.defaultValueDescription === undefined) {
      option.defaultValueDescription = d as string;
    }
  }
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
