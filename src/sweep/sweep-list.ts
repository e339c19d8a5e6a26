import fs from "node:fs";
import path from "node:path";
import { refuseSymlink } from "../util/no-follow.js";
import { readSweepConfig, readSweepSummary, sweepRunning } from "./sweep-dir.js";
import { sweepFile } from "./sweep-layout.js";

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
}

/** Sweep directories under `root` (their config.json says `sweep`), oldest first. */
export function sweepDirs(root: string): string[] {
  if (!fs.existsSync(root)) return [];
  return fs
    .readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => path.join(root, d.name))
    .filter((dir) => readSweepConfig(dir) !== null)
    .sort();
}

/** Every sweep under `root`, newest first. */
export function listSweeps(root: string): SweepListing[] {
  const out: SweepListing[] = [];
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
  return out.reverse();
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
 * when it names none (it may name a run). A link is refused, never followed.
 */
export function findSweepDir(name: string, root: string): string | null {
  for (const c of [path.resolve(name), path.join(root, name)]) {
    if (readSweepConfig(c) !== null) {
      refuseSymlink(c);
      return c;
    }
  }
  const ids = sweepDirs(root).filter((d) => path.basename(d).startsWith(name));
  if (ids.length !== 1) return null;
  refuseSymlink(ids[0] as string);
  return ids[0] as string;
}
