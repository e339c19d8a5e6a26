import { createHash } from "node:crypto";
import fs from "node:fs";
import type { RunConfig } from "../runner/run-config.js";
import type { BudgetLimit } from "../sweep/experiment/experiment-budget.js";
import type { PlannedRun } from "../sweep/experiment/experiment-plan.js";
import type { PlannedRunOutcome } from "../sweep/experiment/run-experiment.js";
import type { SearchSettings } from "../sweep/plan.js";
import type { CombinationOutcome } from "../sweep/run-combination.js";
import type { WorkItem } from "../sweep/worker-pool.js";

/** A file a job runs on, by the sha256 of its bytes as the coordinator read them. */
export interface HashedFile {
  file: string;
  sha256: string;
}

/** A job's data: a chunk of one sweep's combinations and everything needed to run them. */
export interface SweepJobData {
  sweepId: string;
  run: RunConfig;
  search: SearchSettings;
  data: HashedFile[];
  strategy: HashedFile;
  items: WorkItem[];
}

/** A job's return value: each combination's line of results.jsonl and its equity curve (the
 * float64 bytes in base64: exact, and NaN survives, which JSON numbers would not). */
export interface SweepJobResult {
  runs: { outcome: CombinationOutcome; equity: string | null }[];
}

/** Where a worker's threads put the run directories of experiment jobs (`worker --runs-dir`);
 * unset: the coordinator's runs directory, as each job names it. */
export const WORKER_RUNS_DIR_ENV = "AGENTICBT_WORKER_RUNS_DIR";

/** The name of an LLM experiment's job (one planned run); a code sweep's are "combinations". */
export const EXPERIMENT_RUN_JOB = "experiment-run";

/** The queue's Redis URL as a worker reached it: its job threads keep an experiment's budget
 * there. */
export const WORKER_QUEUE_URL_ENV = "AGENTICBT_WORKER_QUEUE";

/** An LLM experiment's job: one planned run, its full run config (its repeat's seed in it). */
export interface ExperimentJobData {
  experimentId: string;
  run: PlannedRun;
  /** The config of attempt `attempt` (a persistent store's namespace is that attempt's). */
  config: RunConfig;
  attempt: number;
  data: HashedFile[];
  strategy: HashedFile;
  /** `--budget-usd` (absent: none): the run starts only if the experiment's spend allows. */
  budget?: BudgetLimit;
}

/** An experiment job's return value: the run's line of results.jsonl, its directory and the
 * attempt it ran as; or the budget's refusal to start it. */
export type ExperimentJobResult =
  | { kind: "done"; outcome: PlannedRunOutcome; attempt: number }
  | { kind: "refused"; reason: string };

/** About this many jobs a sweep is cut into (fewer when it has fewer combinations). */
const JOBS_PER_SWEEP = 32;

/** Combinations per job: from the sweep's size alone, so a resume cuts the same chunks. */
export function chunkSize(total: number): number {
  return Math.max(1, Math.ceil(total / JOBS_PER_SWEEP));
}

/** JSON with object keys sorted: the same settings give the same text whatever their order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
        )
      : v,
  );
}

export function sha256(bytes: string | Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * A job's id: the sha256 of all of its data (a sweep's: its run settings, search and
 * combinations; an experiment's: its run config and attempt), with its data's and strategy's
 * sha256. Added twice (a resume), it is one job. The sweep's or experiment's id is part of it:
 * BullMQ refuses a child that another live flow holds.
 */
export function jobIdOf(data: SweepJobData | ExperimentJobData): string {
  return sha256(canonicalJson(data));
}

export function encodeEquity(equity: Float64Array | null): string | null {
  if (equity === null) return null;
  return Buffer.from(equity.buffer, equity.byteOffset, equity.byteLength).toString("base64");
}

export function decodeEquity(text: string | null): Float64Array | null {
  if (text === null) return null;
  const bytes = Buffer.from(text, "base64");
  const out = new Float64Array(bytes.length / 8);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

/** sha256 of files, remembered by (size, mtime, inode): a worker does not read a large data file
 * again for every job. */
const known = new Map<string, { stamp: string; sha256: string }>();

export function fileSha256(file: string): string {
  const st = fs.statSync(file, { bigint: true });
  const stamp = `${st.size}:${st.mtimeNs}:${st.ino}:${st.ctimeNs}`;
  const hit = known.get(file);
  if (hit?.stamp === stamp) return hit.sha256;
  const digest = sha256(fs.readFileSync(file));
  known.set(file, { stamp, sha256: digest });
  return digest;
}

/** The attempt a worker started (and its run directory, once it had one), from an experiment
 * run job's progress, which a worker sets as the run starts; null when none started. */
export function runStartOf(progress: unknown): { attempt: number; runDir: string | null } | null {
  let p = progress;
  if (typeof p === "string") {
    try {
      p = JSON.parse(p);
    } catch {
      return null;
    }
  }
  const o = p as { attempt?: unknown; runDir?: unknown } | null;
  if (typeof o?.attempt !== "number") return null;
  const dir = o.runDir;
  return { attempt: o.attempt, runDir: typeof dir === "string" && dir !== "" ? dir : null };
}
