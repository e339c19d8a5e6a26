import path from "node:path";
import type { Command } from "commander";
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
