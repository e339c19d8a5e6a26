import fs from "node:fs";
import path from "node:path";
import { resolveRunDir } from "../rundir/resolve-run.js";
import { baseStatus, liveStatus } from "../rundir/run-lock.js";
import { readResult } from "../rundir/run-record.js";
import type { RemovedRun } from "../rundir/schemas.js";
import { lstatOrNull } from "../util/no-follow.js";
import { listRuns } from "./list-runs.js";

/** `rm` or `prune` refused (a running run, a link, a run outside the root): bad usage, exit 2. */
export class RemoveRefusedError extends Error {
  override readonly name = "RemoveRefusedError";
  readonly exitCode = 2;
}

/** A run directory that may be deleted, with its status, or why it may not. */
type Checked = { ok: true; status: string | null } | { ok: false; why: string };

/**
 * Why `dir` must not be deleted, or null. Only a real directory directly inside the runs root
 * (not a link: deleting through one would delete what it points to, or a link swapped in to
 * a directory outside) whose result.json does not say `running` (a backtest may be writing it).
 */
export function refusal(dir: string, runsRoot: string): string | null {
  const c = checkRunDir(dir, runsRoot);
  return c.ok ? null : c.why;
}

/** `refusal`'s checks, keeping the status they read. `listed`: the status a listing just read
 * (prune), so result.json and run.lock are not read a second time. */
function checkRunDir(dir: string, runsRoot: string, listed?: string): Checked {
  const root = path.resolve(runsRoot);
  if (path.dirname(path.resolve(dir)) !== root || path.basename(dir).startsWith(".")) {
    return {
      ok: false,
      why: `${dir} is not a run directory inside the runs root ${root}; pass --runs-dir <the directory that holds it> to delete it.`,
    };
  }
  const st = lstatOrNull(dir);
  if (st === null) return { ok: false, why: `${dir} does not exist.` };
  if (st.isSymbolicLink()) {
    return {
      ok: false,
      why: `${dir} is a symbolic link; agenticbt never deletes through a link (it could lead outside the runs root). Remove the link itself with rm.`,
    };
  }
  if (!st.isDirectory()) return { ok: false, why: `${dir} is not a directory.` };
  const status = listed ?? statusOf(dir);
  if (status === "running") {
    return {
      ok: false,
      why: `${path.basename(dir)} is running (its result.json says so, and its process is alive or unknown): a backtest may still be writing it. Let it finish or interrupt it first; if its process is gone, delete the directory by hand.`,
    };
  }
  return { ok: true, status };
}

/** result.json's status as judged live (a `running` run whose process is gone is
 * `interrupted (process gone)`, and may be deleted), or null when it cannot be read. */
function statusOf(dir: string): string | null {
  try {
    return liveStatus(dir, readResult(dir).status);
  } catch {
    return null;
  }
}

/**
 * The runs named on `rm`'s command line (ids, unique prefixes or directories), each checked;
 * any unknown or refused name refuses them all, with every reason, before anything is deleted.
 */
export function runsToRemove(names: string[], runsRoot: string): RemovedRun[] {
  const root = path.resolve(runsRoot);
  const runs = new Map<string, RemovedRun>();
  const reasons: string[] = [];
  for (const name of names) {
    if (name.trim() === "") {
      reasons.push(
        "An empty run name matches nothing: give a run id, a unique prefix or a directory.",
      );
      continue;
    }
    try {
      const dir = path.resolve(resolveRunDir(name, root));
      const c = checkRunDir(dir, root);
      if (!c.ok) reasons.push(c.why);
      else runs.set(dir, { id: path.basename(dir), dir, status: c.status ?? "unreadable" });
    } catch (err) {
      reasons.push((err as Error).message);
    }
  }
  if (reasons.length) {
    throw new RemoveRefusedError(`Nothing deleted.\n${reasons.map((r) => `  ${r}`).join("\n")}`);
  }
  return [...runs.values()];
}

export interface PruneCriteria {
  /** Statuses to delete (`failed`, `interrupted`); empty: any status but running. */
  statuses: string[];
  /** Only runs that finished (or, unfinished, started) at least this long ago. */
  olderThanMs: number | null;
  now: number;
}

/**
 * The runs `prune` deletes: matching every criterion given, never running, never unreadable
 * (without a readable result.json neither the status nor the age is known: use `rm`).
 */
export function runsToPrune(runsRoot: string, c: PruneCriteria): RemovedRun[] {
  const root = path.resolve(runsRoot);
  return listRuns(root)
    .runs.filter((r) => {
      if (r.error !== null || r.status === "running") return false;
      if (c.statuses.length && !c.statuses.includes(baseStatus(r.status))) return false;
      if (c.olderThanMs !== null) {
        const at = Date.parse(r.finishedAt ?? r.startedAt ?? "");
        if (!Number.isFinite(at) || c.now - at < c.olderThanMs) return false;
      }
      return checkRunDir(r.dir, root, r.status).ok;
    })
    .map((r) => ({ id: r.id, dir: r.dir, status: r.status }));
}

/**
 * Deletes the runs, each checked again just before (a run may have started, a directory may have
 * been swapped for a link since it was listed). `fs.rmSync` removes links inside a run, never
 * what they point to. Returns the runs deleted; a run refused now is skipped with its reason.
 */
export function deleteRuns(
  runs: RemovedRun[],
  runsRoot: string,
): { deleted: RemovedRun[]; skipped: string[] } {
  const deleted: RemovedRun[] = [];
  const skipped: string[] = [];
  for (const run of runs) {
    const why = refusal(run.dir, runsRoot);
    if (why !== null) {
      skipped.push(why);
      continue;
    }
    fs.rmSync(run.dir, { recursive: true });
    deleted.push(run);
  }
  return { deleted, skipped };
}

const UNITS: Record<string, number> = { h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `--older-than` as milliseconds: a whole number of hours, days or weeks (`12h`, `30d`, `2w`). */
export function parseAge(raw: string): number {
  const m = /^([1-9]\d{0,5})([hdw])$/.exec(raw);
  if (!m) {
    throw new RemoveRefusedError(
      `--older-than ${JSON.stringify(raw)} is not an age: give a whole number from 1 to 999999 followed by h (hours), d (days) or w (weeks), e.g. 12h, 30d, 2w.`,
    );
  }
  return Number(m[1]) * (UNITS[m[2] as string] as number);
}
