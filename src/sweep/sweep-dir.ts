import fs from "node:fs";
import { UsageError } from "../errors/usage-error.js";
import { readJsonFile, readJsonLines } from "../rundir/run-files.js";
import { createRunDir } from "../rundir/run-id.js";
import type { RunConfig } from "../runner/run-config.js";
import { appendLines, truncatePartialLastLine } from "../util/append-lines.js";
import { writeJsonAtomic } from "../util/atomic-write.js";
import { acquireLockFile, type LockOwner, ownerGone, thisProcess } from "../util/lock-file.js";
import { readFileNoFollow } from "../util/no-follow.js";
import { appendCurves, curveRecord, truncatePartialCurve } from "./curves.js";
import type { SearchSettings } from "./plan.js";
import { type CombinationOutcome, type CombinationRun, releaseEquity } from "./run-combination.js";
import type { SweepSummary } from "./summary.js";
import { SWEEP_FILE, SWEEP_KIND, sweepFile } from "./sweep-layout.js";
import type { WalkForwardResult } from "./walk-forward.js";

/** config.json of a sweep: everything a resume needs to make the same combinations again. */
export interface SweepConfig {
  kind: typeof SWEEP_KIND;
  id: string;
  name: string;
  createdAt: string;
  /** The settings every combination starts from, as `agenticbt run` records them. */
  run: RunConfig;
  search: SearchSettings;
  /** `--jobs` as given (null: the cores of the machine the sweep runs on). */
  jobs: number | null;
  top: number;
  /** S of PBO's CSCV (absent in a sweep made before it was a setting: the default). */
  cscvBlocks?: number;
  /** `--walk-forward` as given, or null. */
  walkForward?: string | null;
  /** Combinations in the sweep. */
  total: number;
  /** `--queue`'s Redis URL, its password left out (absent: the sweep ran on one machine). */
  queue?: string;
}

/** How a sweep ended (summary.json's `status`); `running` while it runs. */
export type SweepStatus = "running" | "completed" | "interrupted";

/** summary.json: the search's summary, with the sweep's own record. */
export interface SweepSummaryFile extends SweepSummary {
  id: string;
  name: string;
  status: SweepStatus;
  /** Run directories written for the best combinations (`--top`), best first. */
  topRuns: { index: number; runId: string }[];
  /** sweepMs: wall time from the first combination handed out to the last result; sweepCpuMs:
   * the process's CPU time (every thread) over the same span, which a busy machine does not
   * stretch; walkForwardMs: the walk-forward's time (null: none ran). */
  timings: {
    sweepMs: number;
    sweepCpuMs: number;
    combinationsPerSecond: number | null;
    walkForwardMs: number | null;
  };
  /** `--walk-forward`'s windows and stitched out-of-sample figures (null: not asked for, or the
   * sweep did not complete). */
  walkForward: WalkForwardResult | null;
  finishedAt: string | null;
}

/** A new, empty sweep directory (ids as runs have them: sortable by time, never shared). */
export function createSweepDir(root: string, name: string): { id: string; dir: string } {
  return createRunDir(root, name);
}

/** This process's hold on a sweep directory: a second sweep or resume of it at once is refused. */
export function lockSweep(dir: string): { release(): void } {
  const file = sweepFile(dir, "lock");
  const held = acquireLockFile(file, JSON.stringify(thisProcess()), (bytes) => {
    const owner = lockOwner(bytes);
    return owner === null || ownerGone(owner, 0);
  });
  if (held !== null)
    throw new UsageError(
      `${dir} is being swept by another process (${SWEEP_FILE.lock}: ${held.toString("utf8").trim()}): wait for it, or stop it first.`,
    );
  return {
    release() {
      fs.rmSync(file, { force: true });
    },
  };
}

function lockOwner(bytes: Buffer): LockOwner | null {
  try {
    const v = JSON.parse(bytes.toString("utf8")) as Partial<LockOwner>;
    return typeof v.pid === "number" && typeof v.host === "string"
      ? { pid: v.pid, host: v.host, bootId: v.bootId ?? null }
      : null;
  } catch {
    return null;
  }
}

/** Whether a process is sweeping `dir` now (its lock's owner is alive). */
export function sweepRunning(dir: string): boolean {
  const bytes = readFileNoFollow(sweepFile(dir, "lock"));
  if (bytes === null) return false;
  const owner = lockOwner(bytes);
  return owner !== null && !ownerGone(owner, 0);
}

export function writeSweepConfig(dir: string, config: SweepConfig): void {
  writeJsonAtomic(sweepFile(dir, "config"), config);
}

/** A directory's config.json when it is a sweep's, else null. */
export function readSweepConfig(dir: string): SweepConfig | null {
  let value: unknown;
  try {
    value = readJsonFile(sweepFile(dir, "config"));
  } catch {
    return null;
  }
  const v = value as Partial<SweepConfig> | null;
  return v !== null && typeof v === "object" && v.kind === SWEEP_KIND ? (v as SweepConfig) : null;
}

export function writeSweepSummary(dir: string, summary: SweepSummaryFile): void {
  writeJsonAtomic(sweepFile(dir, "summary"), summary);
}

export function readSweepSummary(dir: string): SweepSummaryFile | null {
  try {
    return readJsonFile(sweepFile(dir, "summary")) as SweepSummaryFile;
  } catch {
    return null;
  }
}

/**
 * results.jsonl's outcomes, one per combination: a partial last line (a kill -9 in the middle of
 * an append) is cut off first, and a combination found twice keeps its first line.
 */
export function readSweepResults(dir: string): CombinationOutcome[] {
  const file = sweepFile(dir, "results");
  truncatePartialLastLine(file);
  const lines = (readJsonLines(file) ?? []) as unknown as CombinationOutcome[];
  const seen = new Set<number>();
  const out: CombinationOutcome[] = [];
  for (const o of lines) {
    if (seen.has(o.index)) continue;
    seen.add(o.index);
    out.push(o);
  }
  return out;
}

/** Lines go out together at most this often (a kill loses them; a resume runs them again). */
const FLUSH_EVERY_MS = 200;
/** Curves waiting beyond this many bytes go out at once: their columns go back to their threads
 * to fill again, instead of new ones being made (a million bars is 8 MB a curve). */
const FLUSH_CURVE_BYTES = 2 ** 20;

/**
 * Appends outcomes to results.jsonl as they arrive, a few times a second: the equity records of
 * the lines go to curves.f64 first, so a line always has its curve (a kill between the two
 * leaves curves without lines, which the resume runs again and appends anew).
 */
export class ResultsLog {
  private lines: string[] = [];
  private curves: Uint8Array[][] = [];
  private curveBytes = 0;
  /** The runs whose lent columns go back once their curves are written. */
  private lent: CombinationRun[] = [];
  private last = performance.now();

  constructor(private readonly dir: string) {
    // Partial records left by a kill: the next appends start clean.
    truncatePartialLastLine(sweepFile(dir, "results"));
    truncatePartialCurve(sweepFile(dir, "curves"));
  }

  /** Takes a run's line and curve. Its equity is not to be read after this: once written, a lent
   * column goes back to its thread, which may be filling it again already. */
  add(run: CombinationRun): void {
    if (run.equity !== null) {
      this.curves.push(curveRecord(run.outcome.index, run.equity));
      this.curveBytes += run.equity.byteLength;
      this.lent.push(run);
    }
    this.lines.push(`${JSON.stringify(run.outcome)}\n`);
    if (this.curveBytes >= FLUSH_CURVE_BYTES || performance.now() - this.last >= FLUSH_EVERY_MS)
      this.flush();
  }

  flush(): void {
    this.last = performance.now();
    if (this.curves.length > 0) {
      appendCurves(sweepFile(this.dir, "curves"), this.curves);
      this.curves = [];
      this.curveBytes = 0;
      for (const run of this.lent) releaseEquity(run);
      this.lent = [];
    }
    if (this.lines.length === 0) return;
    const text = this.lines.join("");
    this.lines = [];
    appendLines(sweepFile(this.dir, "results"), text);
  }
}
