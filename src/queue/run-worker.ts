import os from "node:os";
import path from "node:path";
import { Worker } from "bullmq";
import { LIMITER_STORE_ENV, limiterStoreEnv } from "../agent/llm/limiter-store.js";
import { connectRedis, JOBS_QUEUE } from "./connection.js";
import { WORKER_QUEUE_URL_ENV, WORKER_RUNS_DIR_ENV } from "./sweep-job.js";

/** A worker's name as `agenticbt queue status` lists it. */
export const WORKER_NAME_PREFIX = "agenticbt-worker";

export interface WorkerSettings {
  url: string;
  concurrency: number;
  lockMs: number;
  /** Where experiment runs' directories go (null: the coordinator's runs directory). */
  runsDir?: string | null;
  /** Told of each job as it ends. */
  onJob?: (e: { id: string; status: "completed" | "failed"; error?: string }) => void;
}

/**
 * `agenticbt worker`: takes jobs from the queue until `close()`. Each job runs in a worker
 * thread (BullMQ's sandbox), so a CPU-bound chunk never keeps this thread from renewing the
 * job's lock; a worker that dies leaves its job's lock to expire, and another worker takes it
 * after about `lockMs`.
 */
export async function startQueueWorker(
  s: WorkerSettings,
): Promise<{ close(): Promise<void>; name: string }> {
  const connection = await connectRedis(s.url);
  // The job threads inherit this environment: every run counts its provider limits in the
  // queue's Redis, with every other worker's (unless the environment names a store already).
  if (!process.env[LIMITER_STORE_ENV.url])
    Object.assign(process.env, limiterStoreEnv({ url: s.url, namespace: JOBS_QUEUE }));
  if (s.runsDir) process.env[WORKER_RUNS_DIR_ENV] = path.resolve(s.runsDir);
  // Where the job threads keep an experiment's --budget-usd (the queue's own Redis).
  process.env[WORKER_QUEUE_URL_ENV] = s.url;
  const name = `${WORKER_NAME_PREFIX}:${os.hostname()}:${process.pid}`;
  const processor = new URL("./job-processor.js", import.meta.url);
  const worker = new Worker(JOBS_QUEUE, processor, {
    connection,
    concurrency: s.concurrency,
    useWorkerThreads: true,
    lockDuration: s.lockMs,
    // Stalled jobs are looked for as often as a lock runs out: a killed worker's job waits
    // about one lock duration.
    stalledInterval: Math.max(500, Math.round(s.lockMs / 2)),
    name,
  });
  worker.on("error", () => {});
  worker.on("completed", (job) => s.onJob?.({ id: job.id ?? "", status: "completed" }));
  worker.on("failed", (job, err) =>
    s.onJob?.({ id: job?.id ?? "", status: "failed", error: err.message }),
  );
  await worker.waitUntilReady();
  return {
    name,
    async close() {
      await worker.close();
      connection.disconnect();
    },
  };
}
