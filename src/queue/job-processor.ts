// A worker thread's job processor (BullMQ's sandbox loads this file): runs a chunk of a sweep's
// combinations through the same CombinationRunner as a local sweep, after checking that this
// machine has the very data and strategy the coordinator hashed. The thread keeps its runner
// between jobs of one sweep: the strategy is compiled and the data loaded once.
import fs from "node:fs";
import type { SandboxedJob } from "bullmq";
import { loadData } from "../runner/load-data.js";
import { loadStrategy } from "../runner/load-strategy.js";
import { runPlannedRun } from "../sweep/experiment/run-experiment.js";
import { prepareSweep } from "../sweep/plan.js";
import { CombinationRunner, releaseEquity } from "../sweep/run-combination.js";
import {
  canonicalJson,
  EXPERIMENT_RUN_JOB,
  type ExperimentJobData,
  type ExperimentJobResult,
  encodeEquity,
  fileSha256,
  type HashedFile,
  type SweepJobData,
  type SweepJobResult,
  sha256,
  WORKER_RUNS_DIR_ENV,
} from "./sweep-job.js";

/** A job this machine cannot run as asked: BullMQ fails it at once, without retries. */
class UnrecoverableError extends Error {
  override readonly name = "UnrecoverableError";
}

let cached: { key: string; runner: CombinationRunner } | null = null;

function check(kind: string, f: HashedFile): void {
  let actual: string;
  try {
    actual = fileSha256(f.file);
  } catch (err) {
    throw new UnrecoverableError(
      `this worker cannot read the ${kind} file ${f.file} (${(err as Error).message}): give every worker the same files at the same path.`,
    );
  }
  if (actual !== f.sha256)
    throw new UnrecoverableError(
      `the ${kind} file ${f.file} differs on this worker: sha256 ${actual}, the sweep's is ${f.sha256}. Copy the sweep's file to this machine (or start the sweep again on the new one).`,
    );
}

async function runnerFor(d: SweepJobData): Promise<CombinationRunner> {
  const key = sha256(canonicalJson({ run: d.run, search: d.search, data: d.data, s: d.strategy }));
  if (cached?.key === key) return cached.runner;
  const loaded = loadData(d.run);
  const strategy = await loadStrategy(d.run.strategyPath);
  const prepared = prepareSweep({
    ...loaded,
    strategy,
    strategyPath: d.run.strategyPath,
    run: d.run,
    search: d.search,
  });
  const runner = new CombinationRunner(prepared.data, strategy, prepared.base, prepared.axes);
  cached = { key, runner };
  return runner;
}

/** One run of an LLM experiment, its run directory under this worker's --runs-dir (else the
 * coordinator's runs directory, as the job names it). */
async function processExperimentRun(
  job: SandboxedJob<ExperimentJobData, ExperimentJobResult>,
): Promise<ExperimentJobResult> {
  const d = job.data;
  check("strategy", d.strategy);
  for (const f of d.data) check("data", f);
  const runsDir = process.env[WORKER_RUNS_DIR_ENV];
  const config = runsDir ? { ...d.config, runsRoot: runsDir } : d.config;
  // A job taken over from a worker that died: its run goes on from its own checkpoint when this
  // worker sees the run directory (a shared --runs-dir), else starts again.
  const before = runDirOf(job.progress);
  const outcome = await runPlannedRun(d.run, config, {
    resumeFrom: before !== null && fs.existsSync(before) ? before : null,
    onRunDir: (dir) => void job.updateProgress({ runDir: dir }).catch(() => {}),
  });
  return { outcome };
}

/** The run directory an earlier attempt recorded in the job's progress. */
function runDirOf(progress: unknown): string | null {
  let p = progress;
  if (typeof p === "string") {
    try {
      p = JSON.parse(p);
    } catch {
      return null;
    }
  }
  const dir = (p as { runDir?: unknown } | null)?.runDir;
  return typeof dir === "string" && dir !== "" ? dir : null;
}

export default async function processJob(
  job: SandboxedJob<SweepJobData | ExperimentJobData, SweepJobResult | ExperimentJobResult>,
): Promise<SweepJobResult | ExperimentJobResult> {
  if (job.name === EXPERIMENT_RUN_JOB)
    return processExperimentRun(job as SandboxedJob<ExperimentJobData, ExperimentJobResult>);
  const d = job.data as SweepJobData;
  check("strategy", d.strategy);
  for (const f of d.data) check("data", f);
  const runner = await runnerFor(d);
  const runs: SweepJobResult["runs"] = [];
  for (const item of d.items) {
    const run = await runner.run(item.index, item.settings);
    runs.push({ outcome: run.outcome, equity: encodeEquity(run.equity) });
    releaseEquity(run);
  }
  return { runs };
}
