// A worker thread's job processor (BullMQ's sandbox loads this file): runs a chunk of a sweep's
// combinations through the same CombinationRunner as a local sweep, after checking that this
// machine has the very data and strategy the coordinator hashed. The thread keeps its runner
// between jobs of one sweep: the strategy is compiled and the data loaded once.
import fs from "node:fs";
import type { SandboxedJob } from "bullmq";
import type { Redis } from "ioredis";
import { loadData } from "../runner/load-data.js";
import { loadStrategy } from "../runner/load-strategy.js";
import { billedRunOf } from "../sweep/experiment/experiment-budget.js";
import type { ExperimentResultLine } from "../sweep/experiment/experiment-dir.js";
import {
  attemptRunConfig,
  planRunResume,
  runPlannedRun,
} from "../sweep/experiment/run-experiment.js";
import { prepareSweep } from "../sweep/plan.js";
import { CombinationRunner, releaseEquity } from "../sweep/run-combination.js";
import { connectRedis } from "./connection.js";
import { takePlace } from "./experiment-budget-store.js";
import {
  canonicalJson,
  EXPERIMENT_RUN_JOB,
  type ExperimentJobData,
  type ExperimentJobResult,
  encodeEquity,
  fileSha256,
  type HashedFile,
  runStartOf,
  type SweepJobData,
  type SweepJobResult,
  sha256,
  WORKER_QUEUE_URL_ENV,
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
 * coordinator's runs directory, as the job names it). Under --budget-usd it starts only if the
 * experiment's spend, shared in Redis, allows. */
async function processExperimentRun(
  job: SandboxedJob<ExperimentJobData, ExperimentJobResult>,
): Promise<ExperimentJobResult> {
  const d = job.data;
  check("strategy", d.strategy);
  for (const f of d.data) check("data", f);
  const limit = d.budget;
  if (!limit) return runAttempt(job);
  const redis = await budgetRedis();
  try {
    const got = await takePlace(redis, d.experimentId, d.run, limit);
    if ("refused" in got) return { kind: "refused", reason: got.refused };
    let line: ExperimentResultLine | null = null;
    try {
      const done = await runAttempt(job);
      line = done.outcome.line;
      return done;
    } finally {
      await got.place.settle(line === null ? null : billedRunOf(line));
    }
  } finally {
    redis.disconnect();
  }
}

/**
 * The run, as the attempt it is. A job taken over from a worker that died goes on from its own
 * checkpoint when this worker sees the run directory (a shared --runs-dir), as the same attempt;
 * else it starts again as the next attempt, with that attempt's persistent store (never the
 * killed attempt's). The attempt is in the job's progress before the run starts.
 */
async function runAttempt(
  job: SandboxedJob<ExperimentJobData, ExperimentJobResult>,
): Promise<ExperimentJobResult & { kind: "done" }> {
  const d = job.data;
  const runsDir = process.env[WORKER_RUNS_DIR_ENV];
  const before = runStartOf(job.progress);
  const plan =
    before?.runDir && fs.existsSync(before.runDir) ? await planRunResume(before.runDir) : null;
  const resume = plan !== null && before?.runDir ? { dir: before.runDir, plan } : null;
  const attempt =
    before === null ? d.attempt : resume !== null ? before.attempt : before.attempt + 1;
  const planned = attemptRunConfig(d.config, d.experimentId, d.run, attempt);
  const config = runsDir ? { ...planned, runsRoot: runsDir } : planned;
  await job.updateProgress({ attempt, runDir: resume?.dir ?? null });
  const outcome = await runPlannedRun(d.run, config, {
    resume,
    onRunDir: (dir) => void job.updateProgress({ attempt, runDir: dir }).catch(() => {}),
  });
  return { kind: "done", outcome, attempt };
}

/** A connection of this job's own to the queue's Redis (WATCH holds per connection). */
async function budgetRedis(): Promise<Redis> {
  const url = process.env[WORKER_QUEUE_URL_ENV];
  if (!url)
    throw new UnrecoverableError(
      `this worker cannot hold the experiment to --budget-usd: ${WORKER_QUEUE_URL_ENV} is not set (start it with agenticbt worker --queue).`,
    );
  return connectRedis(url);
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
