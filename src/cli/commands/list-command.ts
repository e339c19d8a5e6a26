import { type Command, Option } from "commander";
import { runsDirOption } from "../run-options.js";
import { LIST_SORTS, LIST_STATUSES, type ListSort } from "./list-query.js";
import { printReport, runsRootOf } from "./runs-root.js";

// Only commander's types and path helpers at import time: the report code (and zod) is loaded by
// the action, so `agenticbt --help` stays fast.

export interface ListOptions {
  runsDir?: string;
  json?: boolean;
  status?: string;
  strategy?: string;
  limit?: string;
  sort?: ListSort;
}

const EXAMPLES = `
Examples:
  $ agenticbt list
  $ agenticbt list --status failed
  $ agenticbt list --strategy sma --sort return --limit 5     # the five best sma runs
  $ agenticbt list --runs-dir /tmp/my-runs --json | jq '.runs[] | select(.status != "completed")'

Newest first by default; --sort return, trades and cost put the highest first, name sorts A to Z.
--strategy matches part of the strategy's or the run's name (any case). PARAMS shows the run's
--param overrides and the broker options it changed (comm=0.001 short ...). The table fits the
terminal (COLUMNS, or 100 when not a terminal): columns are cut, then dropped, never the id.
A run whose result.json cannot be read is listed as "unreadable" with the reason.
Exit codes: 0 success, 2 bad usage.`;

/** `agenticbt list`: returns the exit code. */
export async function listCommand(o: ListOptions): Promise<number> {
  const [{ listRuns }, { formatList }, { queryRuns }, { numberOption }, { terminalWidth }] =
    await Promise.all([
      import("../../report/list-runs.js"),
      import("./format-list.js"),
      import("./list-query.js"),
      import("../parse-number.js"),
      import("../terminal-width.js"),
    ]);
  const limit = numberOption("--limit", o.limit, { min: 1, integer: true });
  const all = listRuns(runsRootOf(o.runsDir));
  const runs = queryRuns(all.runs, {
    status: o.status,
    strategy: o.strategy,
    sort: o.sort ?? "date",
    limit,
  });
  const [{ listSweeps }, { sweepsRootOf }, { formatSweepList }] = await Promise.all([
    import("../../sweep/sweep-list.js"),
    import("../../sweep/sweep-layout.js"),
    import("./format-sweeps.js"),
  ]);
  const sweeps = listSweeps(sweepsRootOf(all.runsRoot));
  const out = { runsRoot: all.runsRoot, runs };
  if (o.json) printReport({ ...out, sweeps }, true, () => "");
  else {
    const width = terminalWidth();
    const allIds = all.runs.map((r) => r.id);
    printReport({ ...out, allIds }, false, (v) => formatList(v, width));
    if (sweeps.length > 0) printReport(sweeps, false, (v) => formatSweepList(v, width));
  }
  return 0;
}

export function registerListCommand(program: Command): void {
  program
    .command("list")
    .description(
      "List the runs (id, name, symbols, key parameters, status, return vs buy-and-hold, trades, cost), then the sweeps",
    )
    .addOption(new Option("--status <status>", "only runs with this status").choices(LIST_STATUSES))
    .option("--strategy <name>", "only runs whose strategy or run name contains this")
    .addOption(new Option("--sort <key>", "order of the rows").choices(LIST_SORTS).default("date"))
    .option("--limit <n>", "show at most n runs (after filtering and sorting)")
    .addOption(runsDirOption())
    .option("--json", "print the list as JSON on stdout")
    .addHelpText("after", EXAMPLES)
    .action(async (opts: ListOptions) => {
      process.exitCode = await listCommand(opts);
    });
}
