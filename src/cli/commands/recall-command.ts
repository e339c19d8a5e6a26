import type { Command } from "commander";
import { runsDirOption } from "../run-options.js";
import { printReport, runsRootOf } from "./runs-root.js";

// Only commander's types and path helpers at import time: the report, zod and SQLite code is
// loaded by the action, so `agenticbt --help` stays fast.

export interface RecallOptions {
  limit?: string;
  asOf?: string;
  seq?: string;
  keywordsOnly?: boolean;
  runsDir?: string;
  json?: boolean;
}

const DEFAULT_LIMIT = "5";

const EXAMPLES = `
Examples:
  $ agenticbt recall 20261122-0735 "stop loss"
  $ agenticbt recall 20261122-0735 "earnings gap" --limit 10
  $ agenticbt recall 20261122-0735 "stop loss" --as-of 2024-03-15   # what the agent recalled then
  $ agenticbt recall 20261122-0735 "stop loss" --as-of "2024-03-15 10:30" --seq 812
  $ agenticbt recall 20261122-0735 止损 --json | jq '.citations[].path'
  $ agenticbt recall .agenticbt/runs/<id> "position sizing" --keywords-only

Searches the run's journal, notes, reviews and playbook (its index.sqlite, rebuilt if missing).
Without --as-of: all of the run's memory, no decay (your view of it). With --as-of: exactly what
the agent's memory_recall returned at that simulated time: the memory as it stood at the bar's
first recorded recall (--seq picks another: the seq of a recall in decisions.jsonl), or at the
start of the bar when none was recorded; journals of the last 5 trading days, weekly reviews of
weeks no monthly review covers, monthly reviews; the run's half-life and minimum score. A date
alone means 00:00 of that day (a daily bar's time).
A run recorded with --embed-model recalls hybrid (keywords and embeddings, with the run's weights;
the key is read from $OPENAI_API_KEY); --keywords-only recalls by keywords alone, offline.
Exit codes: 0 success (also with no match), 1 embeddings failed, 2 bad usage (unknown run, bad
date, empty query, bad --limit).`;

/** `agenticbt recall`: returns the exit code; bad usage throws (exit code 2). */
export async function recallCommand(run: string, query: string, o: RecallOptions): Promise<number> {
  const [{ numberOption }, { resolveRunDir }, { recallRun }, { formatRecall, wantsColor }] =
    await Promise.all([
      import("../parse-number.js"),
      import("../../rundir/resolve-run.js"),
      import("../../report/recall-run.js"),
      import("./format-recall.js"),
    ]);
  const limit = numberOption("--limit", o.limit ?? DEFAULT_LIMIT, { min: 1, integer: true });
  const seq =
    o.seq === undefined ? undefined : numberOption("--seq", o.seq, { min: 0, integer: true });
  const dir = resolveRunDir(run, runsRootOf(o.runsDir));
  const out = await recallRun(dir, query, {
    limit: limit ?? Number(DEFAULT_LIMIT),
    ...(o.asOf !== undefined ? { asOf: o.asOf } : {}),
    ...(seq !== undefined && seq !== null ? { seq } : {}),
    keywordsOnly: o.keywordsOnly === true,
  });
  const color = wantsColor(process.stdout, process.env);
  printReport(out, o.json, (r) => formatRecall(r, color));
  return 0;
}

export function registerRecallCommand(program: Command): void {
  program
    .command("recall")
    .description("Search a run's memory: citations (file:lines, score, snippet) for a query")
    .argument("<run>", "run directory, id, or unique id prefix")
    .argument("<query>", "words to look for (English or Chinese)")
    .option("-n, --limit <n>", "most citations to print", DEFAULT_LIMIT)
    .option(
      "--as-of <date>",
      "answer as the agent did at this time: YYYY-MM-DD or YYYY-MM-DD HH:MM",
    )
    .option("--seq <n>", "with --as-of: the write sequence of a recorded recall (decisions.jsonl)")
    .option("--keywords-only", "recall by keywords (BM25) even if the run used embeddings")
    .addOption(runsDirOption())
    .option("--json", "print JSON on stdout")
    .addHelpText("after", EXAMPLES)
    .action(async (run: string, query: string, opts: RecallOptions) => {
      process.exitCode = await recallCommand(run, query, opts);
    });
}
