import { createHash } from "node:crypto";
import path from "node:path";
import type { Command } from "commander";
import type { CompareOutput } from "../../report/compare-runs.js";
import { runsDirOption } from "../run-options.js";
import { printReport, runsRootOf } from "./runs-root.js";

export interface CompareOptions {
  runsDir?: string;
  json?: boolean;
  /** `--html [file]`: true when given without a file. */
  html?: string | boolean;
}

const EXAMPLES = `
Examples:
  $ agenticbt compare 20261123-1200 20261123-1201 20261123-1202
  $ agenticbt compare <runA> <runB> --json | jq '.runs[].memory'
  $ agenticbt compare <runA> <runB> --html compare.html   # offline page
  $ agenticbt run strategies/rsi-mean-reversion.md --data data/SPY_D.csv --memory files,layered

Shows N runs side by side: window, data, strategy, parameters, model, memory system and status
(with a warning when the window, data or strategy differ), metrics, behaviour (decisions by
outcome, turnover, holding time), the memory counters every system gets (writes, recalls,
citations, memory's share of the prompt, prefix hashes, the recall index's health, files, chunks,
vectors and last sync), a layered run's flow counted from its layered.jsonl (stores,
reflections, promotions, demotions, removals, reflection triggers, every other operation by
name), each system's own statistics, model calls, tokens and cost. --html draws the equity curves over each other.
Exit codes: 0 success, 2 bad usage (unknown run, fewer than two runs).`;

/** `agenticbt compare`: returns the exit code; bad usage throws (exit code 2). */
export async function compareCommand(runs: string[], o: CompareOptions): Promise<number> {
  const [{ compareRuns }, { resolveRunDir }, { formatCompare }] = await Promise.all([
    import("../../report/compare-runs.js"),
    import("../../rundir/resolve-run.js"),
    import("./format-compare.js"),
  ]);
  const root = runsRootOf(o.runsDir);
  const out = compareRuns(runs.map((r) => resolveRunDir(r, root)));
  if (o.html !== undefined && o.html !== false) {
    const file = typeof o.html === "string" ? o.html : defaultPageName(out.runs.map((r) => r.id));
    const written = await writeComparePage(out, path.resolve(file));
    process.stderr.write(`Wrote ${written}\n`);
  }
  printReport(out, o.json, formatCompare);
  return 0;
}

/**
 * `compare-<N>-runs-<hash>.html`: short whatever the number of runs (the ids joined made a name
 * too long for the file system at 6 runs), and the same for the same runs in the same order.
 */
export function defaultPageName(ids: readonly string[]): string {
  const hash = createHash("sha256").update(ids.join("\n")).digest("hex").slice(0, 10);
  return `compare-${ids.length}-runs-${hash}.html`;
}

async function writeComparePage(out: CompareOutput, file: string): Promise<string> {
  const [{ renderComparePage }, { writeFileAtomic }] = await Promise.all([
    import("../../report/html/compare-page.js"),
    import("../../util/atomic-write.js"),
  ]);
  writeFileAtomic(file, renderComparePage(out));
  return file;
}

export function registerCompareCommand(program: Command): void {
  program
    .command("compare")
    .description("N runs side by side: metrics, memory statistics, LLM tokens and cost")
    .argument("<runs...>", "run directories, ids, or unique id prefixes (two or more)")
    .addOption(runsDirOption())
    .option("--json", "print the comparison as JSON on stdout")
    .option("--html [file]", "also write an offline page (default compare-<N>-runs-<hash>.html)")
    .addHelpText("after", EXAMPLES)
    .action(async (runs: string[], opts: CompareOptions) => {
      process.exitCode = await compareCommand(runs, opts);
    });
}
