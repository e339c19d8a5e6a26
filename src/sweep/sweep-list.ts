import fs from "node:fs";
import path from "node:path";
import { readJsonFile } from "../rundir/run-files.js";
import { refuseSymlink } from "../util/no-follow.js";
import { peekExperimentResults, readExperimentConfig } from "./experiment/experiment-dir.js";
import { spentUsd } from "./experiment/experiment-summary.js";
import { readSweepConfig, readSweepSummary, sweepRunning } from "./sweep-dir.js";
import { SWEEP_FILE, sweepFile } from "./sweep-layout.js";

/** A sweep as `list` shows it. */
export interface SweepListing {
  id: string;
  dir: string;
  name: string;
  /** completed, interrupted, running, or "interrupted (process gone)" after a kill. */
  status: string;
  done: number;
  total: number;
  objective: string;
  best: { settings: Record<string, unknown>; value: number } | null;
  createdAt: string;
  /** An LLM experiment's: what its runs were billed so far; null when a price is unknown. */
  spentUsd?: number | null;
}

/** A code sweep's or an LLM experiment's directory. */
const isSweepDir = (dir: string) =>
  readSweepConfig(dir) !== null || readExperimentConfig(dir) !== null;

/** Sweep directories under `root` (their config.json says `sweep`), oldest first. */
function sweepDirs(root: string): string[] {
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => path.join(root, d.name))
    .filter((dir) => readSweepConfig(dir) !== null)
    .sort();
}

/** Every sweep under `root`, newest first (LLM experiments among them, without a best). */
export function listSweeps(root: string): SweepListing[] {
  const out: SweepListing[] = [];
  const experiments = experimentListings(root);
  for (const dir of sweepDirs(root)) {
    const config = readSweepConfig(dir);
    if (config === null) continue;
    const summary = readSweepSummary(dir);
    const status =
      summary !== null
        ? summary.status
        : sweepRunning(dir)
          ? "running"
          : "interrupted (process gone)";
    const objective = config.search.objective;
    out.push({
      id: config.id,
      dir,
      name: config.name,
      status,
      done: summary?.done ?? countLines(dir),
      total: config.total,
      objective: `${objective.direction} ${objective.metric}`,
      best: summary?.best ? { settings: summary.best.settings, value: summary.best.value } : null,
      createdAt: config.createdAt,
    });
  }
  return [...out, ...experiments].sort((a, b) => a.dir.localeCompare(b.dir)).reverse();
}

/** The LLM experiments under `root`, as `list` shows sweeps. */
function experimentListings(root: string): SweepListing[] {
  if (!fs.existsSync(root)) return [];
  const out: SweepListing[] = [];
  for (const d of fs.readdirSync(root, { withFileTypes: true })) {
    if (!d.isDirectory()) continue;
    const dir = path.join(root, d.name);
    const config = readExperimentConfig(dir);
    if (config === null) continue;
    type Written = { status?: string; done?: number; budget?: { spentUsd?: number | null } };
    let summary: Written | null = null;
    try {
      summary = readJsonFile(sweepFile(dir, "summary")) as Written;
    } catch {
      summary = null;
    }
    let spent: number | null | undefined = summary?.budget?.spentUsd;
    if (spent === undefined) {
      try {
        spent = spentUsd(peekExperimentResults(dir));
      } catch {
        // results.jsonl is a link or unreadable: nothing is known of the spend.
        spent = null;
      }
    }
    out.push({
      id: config.id,
      dir,
      name: config.name,
      // Running first: a resumed experiment keeps its last summary.json until it ends again.
      status: sweepRunning(dir) ? "running" : (summary?.status ?? "interrupted (process gone)"),
      done: summary?.done ?? countLines(dir),
      total: config.total,
      objective: `experiment: ${config.cells.filter((c) => c.code !== true).length} cells × ${config.windows.length} windows × ${config.repeats} repeats${config.cells.some((c) => c.code === true) ? " + a code baseline" : ""}`,
      best: null,
      createdAt: config.createdAt,
      spentUsd: spent,
    });
  }
  return out;
}

function countLines(dir: string): number {
  try {
    const text = fs.readFileSync(sweepFile(dir, "results"), "utf8");
    return text.split("\n").filter((l) => l.endsWith("}")).length;
  } catch {
    return 0;
  }
}

/**
 * The sweep directory `name` names (a path, an id under `root`, or a unique id prefix), or null
 * when it names none (it may name a run). An LLM experiment's too. A link is refused, never
 * followed.
 */
export function findSweepDir(name: string, root: string): string | null {
  for (const c of [path.resolve(name), path.join(root, name)]) {
    if (isSweepDir(c)) {
      refuseSymlink(c);
      return c;
    }
  }
  const all = fs.existsSync(root)
    ? fs
        .readdirSync(root, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => path.join(root, d.name))
        .filter(isSweepDir)
    : [];
  const ids = all.filter((d) => path.basename(d).startsWith(name));
  if (ids.length !== 1) return null;
  refuseSymlink(ids[0] as string);
  return ids[0] as string;
}

/** A sweep `rm` or `prune` deletes (the shape of a removed run: `rm`'s output lists both). */
export interface RemovedSweep {
  id: string;
  dir: string;
  status: string;
}

/** Why a sweep directory must not be deleted (a process sweeps it, it is a link), or null. */
function sweepRefusal(dir: string): string | null {
  if (fs.lstatSync(dir).isSymbolicLink())
    return `${dir} is a symbolic link; agenticbt never deletes through a link. Remove the link itself with rm.`;
  if (sweepRunning(dir))
    return `${path.basename(dir)} is running (its ${SWEEP_FILE.lock} names a live process): stop it first.`;
  return null;
}

/**
 * The sweeps among `names` (ids, unique prefixes or directories; the names that are not
 * sweeps are returned as `rest`, for the runs), each checked: a running sweep refuses them all.
 */
export function sweepsToRemove(
  names: readonly string[],
  root: string,
): { sweeps: RemovedSweep[]; rest: string[]; refused: string[] } {
  const sweeps = new Map<string, RemovedSweep>();
  const rest: string[] = [];
  const refused: string[] = [];
  for (const name of names) {
    const dir = name.trim() === "" ? null : findSweepDir(name, root);
    if (dir === null) {
      rest.push(name);
      continue;
    }
    const why = sweepRefusal(dir);
    if (why !== null) refused.push(why);
    else sweeps.set(dir, { id: path.basename(dir), dir, status: statusOf(dir) });
  }
  return { sweeps: [...sweeps.values()], rest, refused };
}

function statusOf(dir: string): string {
  return listSweeps(path.dirname(dir)).find((s) => s.dir === dir)?.status ?? "unreadable";
}

/**
 * The sweeps `prune` deletes: `interrupted` ones (stopped, or killed), `failed` ones (every
 * combination failed), finished (or started) at least `olderThanMs` ago; never a running one.
 */
export function sweepsToPrune(
  root: string,
  c: { statuses: string[]; olderThanMs: number | null; now: number },
): RemovedSweep[] {
  return listSweeps(root)
    .filter((s) => {
      if (s.status === "running") return false;
      const summary = readSweepSummary(s.dir);
      const failed = summary !== null && summary.done > 0 && summary.failed === summary.done;
      const status = s.status.startsWith("interrupted")
        ? "interrupted"
        : failed
          ? "failed"
          : s.status;
      if (c.statuses.length && !c.statuses.includes(status)) return false;
      if (c.olderThanMs !== null) {
        const at = Date.parse(summary?.finishedAt ?? s.createdAt);
        if (!Number.isFinite(at) || c.now - at < c.olderThanMs) return false;
      }
      return sweepRefusal(s.dir) === null;
    })
    .map((s) => ({ id: s.id, dir: s.dir, status: s.status }));
}
