import fs from "node:fs";
import path from "node:path";
import { writeJsonAtomic } from "../../util/atomic-write.js";
import { isErrnoCode } from "../../util/errno.js";
import {
  lstatOrNull,
  mkdirBelow,
  readFileNoFollow,
  refuseSymlinkBelow,
} from "../../util/no-follow.js";
import { type MemoryPolicy, recordedPolicy } from "./memory-policy.js";
import { PolicyError } from "./policy-errors.js";
import { POLICY_OVERRIDES_FILE } from "./policy-sources.js";
import { POLICY_SNAPSHOTS_DIR } from "./policy-state.js";

/** In a run directory: the policy_overrides.json each rollback replaced, numbered. */
export const POLICY_BACKUPS_DIR = "policy_backups";

export interface RollbackOutcome {
  /** The snapshot's file name (policy_snapshots/<name>). */
  snapshot: string;
  /** The policy now in policy_overrides.json: the snapshot's policy before its change. */
  policy: MemoryPolicy;
  /** Where the replaced policy_overrides.json was copied (relative to the run), or null. */
  backup: string | null;
}

/** The run's policy snapshots, oldest first (regular `.json` files only). */
export function listPolicySnapshots(runDir: string): string[] {
  const dir = path.join(runDir, POLICY_SNAPSHOTS_DIR);
  if (lstatOrNull(dir)?.isSymbolicLink()) return [];
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith(".json") && !e.name.startsWith("."))
      .map((e) => e.name)
      .sort();
  } catch (err) {
    if (isErrnoCode(err, "ENOENT")) return [];
    throw err;
  }
}

/**
 * The snapshot a user names: its file name, with or without `.json`, or its number (`2`, `002`).
 * An unknown name is a PolicyError listing the snapshots there are.
 */
export function findPolicySnapshot(runDir: string, name: string): string {
  const names = listPolicySnapshots(runDir);
  const wanted = name.trim();
  const seq = /^\d+$/.test(wanted) ? Number(wanted) : null;
  const found = names.find(
    (n) =>
      n === wanted ||
      n === `${wanted}.json` ||
      (seq !== null && Number(n.split("_")[0]) === seq && /^\d+_/.test(n)),
  );
  if (found !== undefined) return found;
  const there =
    names.length === 0
      ? "This run has none: its agent changed no policy (evolution off, or no proposal accepted)."
      : `Its snapshots: ${names.map((n) => n.replace(/\.json$/, "")).join(", ")}.`;
  throw new PolicyError(`No policy snapshot ${JSON.stringify(name)} in ${runDir}. ${there}`);
}

/**
 * Puts the policy from before a snapshot's change back into the run's policy_overrides.json (what
 * `run --policy-from <run>` carries to the next run), after copying the current file to
 * `policy_backups/policy_overrides.<n>.json`. The run's recorded outputs are not touched.
 */
export function rollbackPolicy(runDir: string, name: string): RollbackOutcome {
  const snapshot = findPolicySnapshot(runDir, name);
  const file = path.join(runDir, POLICY_SNAPSHOTS_DIR, snapshot);
  const bytes = readFileNoFollow(file);
  let before: MemoryPolicy | null = null;
  try {
    const parsed: unknown = bytes === null ? null : JSON.parse(bytes.toString("utf8"));
    before = recordedPolicy((parsed as { before?: unknown } | null)?.before);
  } catch {
    before = null;
  }
  if (before === null) {
    throw new PolicyError(
      `${file} holds no valid "before" policy to roll back to: it is damaged. Pick another snapshot.`,
    );
  }
  const overrides = path.join(runDir, POLICY_OVERRIDES_FILE);
  refuseSymlinkBelow(runDir, overrides);
  const current = readFileNoFollow(overrides);
  let backup: string | null = null;
  if (current !== null) {
    const dir = path.join(runDir, POLICY_BACKUPS_DIR);
    mkdirBelow(runDir, dir);
    for (let n = 1; backup === null; n++) {
      const rel = `${POLICY_BACKUPS_DIR}/policy_overrides.${n}.json`;
      const target = path.join(runDir, rel);
      if (lstatOrNull(target) !== null) continue;
      fs.writeFileSync(target, current, { flag: "wx" });
      backup = rel;
    }
  }
  writeJsonAtomic(overrides, before);
  return { snapshot, policy: before, backup };
}
