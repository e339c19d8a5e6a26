import path from "node:path";
import type { Command } from "commander";
import { runsDirOption } from "../run-options.js";
import { printReport, runsRootOf } from "./runs-root.js";

// Only commander's types and path helpers at import time: the report code (and the chart
// library) is loaded by the action, so `agenticbt --help` stays fast.

export interface ReportOptions {
  runsDir?: string;
  out?: string;
  json?: boolean;
}

const EXAMPLES = `
Examples:
  $ agenticbt report 20261122-0735                       # (re)writes <run dir>/report.html
  $ agenticbt report 20261122-0735 --out /tmp/goog.html
  $ agenticbt report .agenticbt/runs/<id> --json         # {"file": ..., "bytes": ..., "ms": ...}

The page is self-contained and works offline (no network request of any kind): equity against
buy-and-hold and drawdown, price candles with trades and rejected orders, every metric, the
trades, and for LLM runs the decision timeline and tokens and cost over time. Candles need the
run's data files unchanged (same sha256); otherwise the page says why they are missing.
For two runs side by side: agenticbt diff <runA> <runB> --html [file].
Exit codes: 0 success, 2 bad usage (unknown run, unreadable run files).`;

/** `agenticbt report`: returns the exit code; an unknown run throws (exit code 2). */
export async function reportCommand(run: string, o: ReportOptions): Promise<number> {
  const [{ writeRunReport }, { resolveRunDir }] = await Promise.all([
    import("../../report/html/write-report.js"),
    import("../../rundir/resolve-run.js"),
  ]);
  const dir = resolveRunDir(run, runsRootOf(o.runsDir));
  const written = writeRunReport(dir, {}, o.out === undefined ? undefined : path.resolve(o.out));
  printReport(written, o.json, (w) => `${w.file} (${(w.bytes / 1024).toFixed(0)} KiB)`);
  return 0;
}

export function registerReportCommand(program: Command): void {
  program
    .command("report")
    .description("Write a run's self-contained, offline report.html (charts, metrics, trades)")
    .argument("<run>", "run directory, id, or unique id prefix")
    .option("--out <file>", "write the page here instead of <run dir>/report.html")
    .addOption(runsDirOption())
    .option("--json", "print the written file, its size and the time taken as JSON")
    .addHelpText("after", EXAMPLES)
    .action(async (run: string, opts: ReportOptions) => {
      process.exitCode = await reportCommand(run, opts);
    });
}
