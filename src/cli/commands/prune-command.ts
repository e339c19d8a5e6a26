import type { Command } from "commander";
import { UsageError } from "../../errors/run-errors.js";
import type { RemoveFlags } from "./remove-flow.js";
import { addRemoveOptions } from "./remove-options.js";
import { runsRootOf } from "./runs-root.js";

// Only commander's types and path helpers at import time; the action loads the rest.

export interface PruneOptions extends RemoveFlags {
  runsDir?: string;
  failed?: boolean;
  interrupted?: boolean;
  olderThan?: string;
}

const EXAMPLES = `
Examples:
  $ agenticbt prune --failed --dry-run
  $ agenticbt prune --failed --interrupted --yes
  $ agenticbt prune --older-than 30d
  $ agenticbt prune --failed --older-than 2w --json --yes

--failed and --interrupted select by status (either one); --older-than (12h, 30d, 2w) keeps
runs that finished more recently. Given together, a run must match both. Running runs are never
deleted; runs whose result.json cannot be read are left for rm. On a terminal prune asks first;
otherwise it needs --yes.
Exit codes: 0 success (or nothing matched, or declined), 2 bad usage (no criterion, bad age, no --yes without a terminal).`;

/** `agenticbt prune`: returns the exit code. */
export async function pruneCommand(o: PruneOptions): Promise<number> {
  if (!o.failed && !o.interrupted && o.olderThan === undefined) {
    throw new UsageError(
      "prune needs what to delete: --failed, --interrupted and/or --older-than <age> (e.g. 30d).",
    );
  }
  const [{ runsToPrune, parseAge }, { confirmAndDelete }, { sweepsToPrune }, layout] =
    await Promise.all([
      import("../../report/remove-runs.js"),
      import("./remove-flow.js"),
      import("../../sweep/sweep-list.js"),
      import("../../sweep/sweep-layout.js"),
    ]);
  const olderThanMs = o.olderThan === undefined ? null : parseAge(o.olderThan);
  const statuses = [o.failed ? "failed" : "", o.interrupted ? "interrupted" : ""].filter(Boolean);
  const root = runsRootOf(o.runsDir);
  const criteria = { statuses, olderThanMs, now: Date.now() };
  const runs = runsToPrune(root, criteria);
  // Sweeps too: interrupted (stopped or killed), failed (every combination failed), or old.
  const sweepsRoot = layout.sweepsRootOf(root);
  const sweeps = sweepsToPrune(sweepsRoot, criteria);
  let code = 0;
  if (runs.length > 0 || sweeps.length === 0) code = await confirmAndDelete(runs, root, o);
  if (sweeps.length > 0) code = Math.max(code, await confirmAndDelete(sweeps, sweepsRoot, o));
  return code;
}

export function registerPruneCommand(program: Command): void {
  const prune = program
    .command("prune")
    .description("Delete failed, interrupted or old runs and sweeps (never a running one)")
    .option("--failed", "runs whose status is failed")
    .option("--interrupted", "runs whose status is interrupted")
    .option("--older-than <age>", "runs finished at least this long ago: 12h, 30d, 2w");
  addRemoveOptions(prune)
    .addHelpText("after", EXAMPLES)
    .action(async (opts: PruneOptions) => {
      process.exitCode = await pruneCommand(opts);
    });
}
