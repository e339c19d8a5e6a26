import path from "node:path";
import type { Command } from "commander";
import type { ExperimentSummary } from "../../sweep/experiment/experiment-summary.js";
import { runsDirOption } from "../run-options.js";
import { printReport, runsRootOf } from "./runs-root.js";

// Only commander's types and path helpers at import time: the report code (and zod) is loaded by
// the action, so `agenticbt --help` stays fast.

export interface ShowOptions {
  runsDir?: string;
  at?: string;
  full?: boolean;
  json?: boolean;
}

const EXAMPLES = `
Examples:
  $ agenticbt show 20261122-0735
  $ agenticbt show .agenticbt/runs/20261122-073256-453-sma-crossover-6xd0 --json
  $ agenticbt show 20261122-0735 --at 2012-03-15          # why did it do that?
  $ agenticbt show 20261122-0735 --at 2012-03-15 --full   # with the whole system prompt

<run> is a run directory, a run id, or a unique prefix of one (see agenticbt list).
--at shows every decisions.jsonl line of that bar: orders, tool calls, rationale, recall
citations and, for LLM runs, the messages the model was sent. With no decision that day it
names the nearest dates that have one.
Exit codes: 0 success, 2 bad usage (unknown run, bad date).`;

/** `agenticbt show`: returns the exit code; an unknown run or bad date throws (exit code 2). */
export async function showCommand(run: string, o: ShowOptions): Promise<number> {
  const { resolveRunDir } = await import("../../rundir/resolve-run.js");
  let dir: string;
  try {
    dir = resolveRunDir(run, runsRootOf(o.runsDir));
  } catch (err) {
    // Not a run: a sweep, perhaps.
    const shown = await showSweep(run, o);
    if (shown) return 0;
    throw err;
  }
  if (o.at !== undefined) {
    const [{ decisionsAt }, { formatDecisionsAt }] = await Promise.all([
      import("../../report/decisions-at.js"),
      import("./format-decisions.js"),
    ]);
    const out = decisionsAt(dir, path.basename(dir), o.at);
    printReport(out, o.json, (r) => formatDecisionsAt(r, o.full === true));
    return 0;
  }
  const [{ summarizeRun }, { formatShow }] = await Promise.all([
    import("../../report/run-summary.js"),
    import("./format-show.js"),
  ]);
  const out = summarizeRun(dir);
  printReport(out, o.json, formatShow);
  return 0;
}

/** `show <sweep>`: its summary (summary.json, or its progress when it has none yet). */
async function showSweep(name: string, o: ShowOptions): Promise<boolean> {
  const [
    { findSweepDir, listSweeps },
    { sweepsRootOf },
    { readSweepSummary },
    { formatSweepSummary },
  ] = await Promise.all([
    import("../../sweep/sweep-list.js"),
    import("../../sweep/sweep-layout.js"),
    import("../../sweep/sweep-dir.js"),
    import("../sweep-run-command.js"),
  ]);
  const root = sweepsRootOf(runsRootOf(o.runsDir));
  const dir = findSweepDir(name, root);
  if (dir === null) return false;
  if (await showExperiment(dir, o)) return true;
  const summary = readSweepSummary(dir);
  if (summary !== null) printReport(summary, o.json, (s) => formatSweepSummary(s, dir));
  else {
    const listed = listSweeps(path.dirname(dir)).find((s) => s.dir === dir);
    printReport(listed ?? { dir }, o.json, (s) =>
      "done" in s
        ? `Sweep ${s.id} (${s.status}): ${s.done} of ${s.total} combinations; agenticbt resume ${s.id} goes on.`
        : s.dir,
    );
  }
  return true;
}

/**
 * `show <experiment>`: its cells, the sentences and the spend, from summary.json; from its
 * results so far while it runs (or after a kill), with what is left said. False: not an
 * experiment.
 */
async function showExperiment(dir: string, o: ShowOptions): Promise<boolean> {
  const [experimentDir, { summarizeExperiment }, { listSweeps }, { readJsonFile }, { sweepFile }] =
    await Promise.all([
      import("../../sweep/experiment/experiment-dir.js"),
      import("../../sweep/experiment/experiment-summary.js"),
      import("../../sweep/sweep-list.js"),
      import("../../rundir/run-files.js"),
      import("../../sweep/sweep-layout.js"),
    ]);
  const config = experimentDir.readExperimentConfig(dir);
  if (config === null) return false;
  const { formatExperimentSummary } = await import("../format-experiment.js");
  let written: ExperimentSummary | null;
  try {
    written = readJsonFile(sweepFile(dir, "summary")) as typeof written;
  } catch {
    written = null;
  }
  const listed = listSweeps(path.dirname(dir)).find((s) => s.dir === dir);
  // No summary.json yet (running, or killed): the figures of the runs finished so far.
  const summary =
    written ??
    summarizeExperiment(
      config,
      experimentDir.peekExperimentResults(dir),
      "interrupted",
      new Date().toISOString(),
    );
  // "running" or "interrupted (process gone)" while there is no summary.json: shown as listed.
  const status: string = written === null ? (listed?.status ?? "interrupted") : summary.status;
  const shown = { ...summary, status: status as ExperimentSummary["status"] };
  printReport(shown, o.json, (s) => {
    const width = process.stdout.isTTY ? (process.stdout.columns ?? null) : null;
    const text = formatExperimentSummary(s, dir, width);
    return written === null
      ? `${text}\n${status === "running" ? "Still running" : `agenticbt resume ${s.id} runs the ${s.total - s.done} left`}: these figures are of the ${s.done} runs finished so far.`
      : text;
  });
  return true;
}

export function registerShowCommand(program: Command): void {
  program
    .command("show")
    .description(
      "Summarise a run (or a sweep), or with --at show a decision and the context behind it",
    )
    .argument("<run>", "run or sweep directory, id, or unique id prefix")
    .option("--at <date>", "the decision(s) at this bar: YYYY-MM-DD or YYYY-MM-DD HH:MM")
    .option("--full", "with --at: print the whole system message and the model's reasoning")
    .addOption(runsDirOption())
    .option("--json", "print JSON on stdout")
    .addHelpText("after", EXAMPLES)
    .action(async (run: string, opts: ShowOptions) => {
      process.exitCode = await showCommand(run, opts);
    });
}
