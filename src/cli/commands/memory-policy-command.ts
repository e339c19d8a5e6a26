import type { Command } from "commander";
import { runsDirOption } from "../run-options.js";
import { printReport, runsRootOf } from "./runs-root.js";

// Only commander's types at import time: the action loads the policy code when it runs.

export interface PolicyRollbackOptions {
  runsDir?: string;
  json?: boolean;
}

const EXAMPLES = `
Examples:
  $ agenticbt memory policy rollback 20261122-0735 001
  $ agenticbt memory policy rollback 20261122-0735 002_2024-03 --json
  $ agenticbt run strategies/trend-atr.md --data data/GOOG.csv --policy-from 20261122-0735

Writes the policy from before the snapshot's change into the run's policy_overrides.json (what
--policy-from carries to the next run), after copying the current file to
policy_backups/policy_overrides.<n>.json. The run's recorded outputs are not changed.
Exit codes: 0 success, 2 bad usage (unknown run or snapshot; the message lists the snapshots).`;

/** `agenticbt memory policy rollback <run> <snapshot>`: bad usage throws (exit code 2). */
export async function policyRollbackCommand(
  run: string,
  snapshot: string,
  o: PolicyRollbackOptions,
): Promise<number> {
  const [{ resolveRunDir }, { rollbackPolicy }] = await Promise.all([
    import("../../rundir/resolve-run.js"),
    import("../../memory/policy/policy-rollback.js"),
  ]);
  const dir = resolveRunDir(run, runsRootOf(o.runsDir));
  const out = rollbackPolicy(dir, snapshot);
  printReport({ run: dir, ...out }, o.json, (r) =>
    [
      `Rolled back ${r.run} to the policy before ${r.snapshot}:`,
      ...Object.entries(r.policy).map(([k, v]) => `  ${k} = ${String(v)}`),
      r.backup === null
        ? "There was no policy_overrides.json to back up."
        : `The replaced policy_overrides.json is in ${r.backup}.`,
    ].join("\n"),
  );
  return 0;
}

/** Adds `policy rollback` to the `memory` command group. */
export function registerMemoryPolicyCommand(memory: Command): void {
  memory
    .command("policy")
    .description("Memory policy snapshots of a run")
    .command("rollback")
    .description("Restore the memory policy a run had before one of its policy snapshots")
    .argument("<run>", "run directory, id, or unique id prefix")
    .argument("<snapshot>", "snapshot name in policy_snapshots/ (001_2024-03) or its number (1)")
    .addOption(runsDirOption())
    .option("--json", "print JSON on stdout")
    .addHelpText("after", EXAMPLES)
    .action(async (run: string, snapshot: string, opts: PolicyRollbackOptions) => {
      process.exitCode = await policyRollbackCommand(run, snapshot, opts);
    });
}
