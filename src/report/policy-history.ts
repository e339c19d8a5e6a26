import fs from "node:fs";
import path from "node:path";
import { POLICY_SNAPSHOTS_DIR } from "../memory/policy/policy-state.js";
import { readJsonFile } from "../rundir/run-files.js";
import { type PolicyChange, policySnapshotSchema } from "../rundir/schemas.js";
import { isErrnoCode } from "../util/errno.js";

/**
 * The memory-policy changes a run's agent made (evolution), from its `policy_snapshots/`, in
 * order: one row per changed key. A run without evolution has none. Only regular files are read.
 */
export function readPolicyHistory(runDir: string): PolicyChange[] {
  const dir = path.join(runDir, POLICY_SNAPSHOTS_DIR);
  let names: string[];
  try {
    names = fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith(".json") && !e.name.startsWith("."))
      .map((e) => e.name)
      .sort();
  } catch (err) {
    if (isErrnoCode(err, "ENOENT")) return [];
    throw err;
  }
  const out: PolicyChange[] = [];
  for (const name of names) {
    const snap = policySnapshotSchema.parse(readJsonFile(path.join(dir, name)));
    for (const c of snap.changes) {
      out.push({
        month: snap.month,
        effectiveFrom: snap.effectiveFrom,
        key: c.key,
        before: c.before,
        after: c.after,
        reason: snap.reason,
      });
    }
  }
  return out;
}
