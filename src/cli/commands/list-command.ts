import type { Command } from "commander";
import { DEFAULT_RUNS_DIR, printReport, runsRootOf } from "./runs-root.js";

// Only commander's types and path helpers at import time: the report code (and zod) is loaded by
// the action, so `agenticbt --help` stays fast.

export interface ListOptions {
  runsDir?: string;
  json?: boolean;
}

const EXAMPLES = `
Examples:
  $ agenticbt list
  $ agenticbt list --runs-dir /tmp/my-runs --json | jq '.runs[] | select(.status != "completed")'

A run whose result.json cannot be read is listed as "unreadable" with the reason.
Exit codes: 0 success, 2 bad usage.`;

/** `agenticbt list`: returns the exit code. */
export async function listCommand(o: ListOptions): Promise<number> {
  const [{ listRuns }, { formatList }] = await Promise.all([
    import("../../report/list-runs.js"),
    import("./format-list.js"),
  ]);
  const out = listRuns(runsRootOf(o.runsDir));
  printReport(out, o.json, formatList);
  return 0;
}

export function registerListCommand(program: Command): void {
  program
    .command("list")
    .description("List the runs: date, id, strategy, model, status, return vs buy-and-hold, cost")
    .option("--runs-dir <dir>", "where run directories are", DEFAULT_RUNS_DIR)
    .option("--json", "print the list as JSON on stdout")
    .addHelpText("after", EXAMPLES)
    .action(async (opts: ListOptions) => {
      process.exitCode = await listCommand(opts);
    });
}
