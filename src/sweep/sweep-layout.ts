// A sweep directory's names, written once: the sweep writes through them, list/show/rm/prune and
// resume read through them. Its config.json and report.html are named as a run's.
import path from "node:path";
import { RUN_FILE } from "../rundir/layout.js";

/** Every file of a sweep directory, by role. */
export const SWEEP_FILE = {
  /** The sweep's settings, written before the first combination (resume runs from them). */
  config: RUN_FILE.config,
  /** One line per finished combination: settings, every metric, status, error. */
  results: "results.jsonl",
  /** The best combination, the counts and the statistics of the search; written at the end. */
  summary: "summary.json",
  /** The offline page: heatmap, table, best equity against buy-and-hold. */
  report: RUN_FILE.report,
  /** Each combination's equity at every close, appended as records of float64 (see curves.ts). */
  curves: "curves.f64",
  /** Names the process running the sweep. */
  lock: "sweep.lock",
} as const;

export type SweepFileRole = keyof typeof SWEEP_FILE;

/** config.json's `kind`: tells a sweep directory from a run's. */
export const SWEEP_KIND = "sweep";

/** `dir`'s file of this role. */
export function sweepFile(dir: string, role: SweepFileRole): string {
  return path.join(dir, SWEEP_FILE[role]);
}

/** Where sweeps go: beside the runs root (`.agenticbt/runs` → `.agenticbt/sweeps`). */
export function sweepsRootOf(runsRoot: string): string {
  return path.join(path.dirname(path.resolve(runsRoot)), "sweeps");
}
