import path from "node:path";
import type { Command } from "commander";
import { runsDirOption } from "../run-options.js";
import { printReport, runsRootOf } from "./runs-root.js";

// Only commander's types and path helpers at import time: the report code (and zod) is loaded by
// the action, so `agenticbt --help` stays fast.

export interface DiffOptions {
  runsDir?: string;
  json?: boolean;
  /** `--html [file]`: true when given without a file. */
  html?: string | boolean;
}

const EXAMPLES = `
Examples:
  $ agenticbt diff 20261122-0735 20261122-0741
  $ agenticbt diff .agenticbt/runs/<idA> .agenticbt/runs/<idB> --json | jq .divergence
  $ agenticbt diff 20261122-0735 20261122-0741 --html compare.html   # the same diff as an offline page, with both equity curves

Shows, from A to B: config differences, metrics side by side with deltas (B - A), the playbook
as a unified diff, notes and reviews added/changed/removed, journal statistics, trades found in
one run only, and the first bar at which their decisions diverge (what each run did there).
--html writes all of it to one offline page, with both runs' equity and drawdown on a chart.
Exit codes: 0 success, 2 bad usage (unknown run).`;

/** `agenticbt diff`: returns the exit code; an unknown run throws (exit code 2). */
export async function diffCommand(runA: string, runB: string, o: DiffOptions): Promise<number> {
  const [{ diffRuns }, { resolveRunDir }, { formatDiff }] = await Promise.all([
    import("../../report/diff-runs.js"),
    import("../../rundir/resolve-run.js"),
    import("./format-diff.js"),
  ]);
  const root = runsRootOf(o.runsDir);
  const out = diffRuns(resolveRunDir(runA, root), resolveRunDir(runB, root));
  if (o.html !== undefined && o.html !== false) {
    const { writeDiffPage } = await import("../../report/html/write-report.js");
    const file = typeof o.html === "string" ? o.html : `diff-${out.a.id}-${out.b.id}.html`;
    process.stderr.write(`Wrote ${writeDiffPage(out, path.resolve(file)).file}\n`);
  }
  printReport(out, o.json, formatDiff);
  return 0;
}

export function registerDiffCommand(program: Command): void {
  program
    .command("diff")
    .description("Compare two runs: config, metrics, playbook, memory, trades, first divergence")
    .argument("<runA>", "run directory, id, or unique id prefix")
    .argument("<runB>", "run directory, id, or unique id prefix")
    .addOption(runsDirOption())
    .option("--json", "print the diff as JSON on stdout")
    .option(
      "--html [file]",
      "also write the diff as an offline page, with both equity curves (default diff-<A>-<B>.html)",
    )
    .addHelpText("after", EXAMPLES)
    .action(async (runA: string, runB: string, opts: DiffOptions) => {
      process.exitCode = await diffCommand(runA, runB, opts);
    });
}
