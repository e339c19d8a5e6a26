import { FlowProducer, Job, Queue, QueueEvents } from "bullmq";
import type { Redis } from "ioredis";
import { JOB_ATTEMPTS, JOB_BACKOFF_MS } from "../config/queue-settings.js";
import { countOrders } from "../rundir/order-outcomes.js";
import type { CombinationOutcome, CombinationRun } from "../sweep/run-combination.js";
import type { SweepExecutor } from "../sweep/run-sweep.js";
import { connectRedis, JOBS_QUEUE, redisOf, SWEEPS_QUEUE } from "./connection.js";
import {
  chunkSize,
  decodeEquity,
  fileSha256,
  jobIdOf,
  type SweepJobData,
  type SweepJobResult,
} from "./sweep-job.js";

/** How often the coordinator asks for the state of the jobs it waits for, besides the events it
 * is told (an event missed while Redis was away is found this way). */
const POLL_MS = 1000;

/** The error of a combination whose job failed for good (its attempts used up). */
export const JOB_FAILED_ERROR = "QueueJobFailed";

/** The queue error of a sweep that was cancelled (`agenticbt queue cancel`). */
export class SweepCancelledError extends Error {
  override readonly name = "SweepCancelledError";
}

/**
 * A sweep's executor through a BullMQ queue on the Redis at `url`: the sweep is a flow parent
 * (in SWEEPS_QUEUE, id the sweep's), its chunks of combinations the children (in JOBS_QUEUE, each
 * id the hash of its settings, data and strategy), run by `agenticbt worker` processes. Their
 * outcomes come back in the jobs' return values, to the same results.jsonl and curves as a local
 * sweep's. A resume adds the same jobs again: those done are read back, the others are one job.
 */
export function queueExecutor(url: string): SweepExecutor {
  return async (p, o) => {
    const skip = o.skip ?? new Set<number>();
    const connection = await connectRedis(url);
    const connections: Redis[] = [connection];
    const more = () => {
      const r = redisOf(url);
      connections.push(r);
      return r;
    };
    const queue = new Queue(JOBS_QUEUE, { connection });
    const events = new QueueEvents(JOBS_QUEUE, { connection: more(), autorun: false });
    const flows = new FlowProducer({ connection: more() });
    try {
      const config = o.config;
      const strategyFile = config.run.strategyPath;
      const strategy = { file: strategyFile, sha256: fileSha256(strategyFile) };
      const data = p.dataInfo.map((d) => ({ file: d.file, sha256: d.sha256 }));
      const size = chunkSize(p.combos.length);
      const pending = new Map<string, SweepJobData>();
      const children = [];
      for (let start = 0; start < p.combos.length; start += size) {
        const items = p.combos
          .slice(start, start + size)
          .map((settings, k) => ({ index: start + k, settings }));
        if (items.every((i) => skip.has(i.index))) continue;
        const job: SweepJobData = {
          sweepId: config.id,
          run: config.run,
          search: config.search,
          data,
          strategy,
          items,
        };
        const jobId = jobIdOf(job);
        pending.set(jobId, job);
        children.push({
          name: "combinations",
          queueName: JOBS_QUEUE,
          data: job,
          opts: {
            jobId,
            attempts: JOB_ATTEMPTS,
            backoff: { type: "exponential", delay: JOB_BACKOFF_MS },
            // A failed job does not hold its sweep: the coordinator records it as failed.
            ignoreDependencyOnFailure: true,
          },
        });
      }
      let stopped = false;
      let wake: (() => void) | null = null;
      const poke = () => {
        wake?.();
        wake = null;
      };
      o.onStart?.({
        stop() {
          stopped = true;
          poke();
        },
      });
      if (children.length === 0) return { stopped: false };
      const seen = new Set(skip);
      const give = (run: CombinationRun) => {
        if (seen.has(run.outcome.index)) return;
        seen.add(run.outcome.index);
        o.onRun(run);
      };
      /** Takes a finished job's outcomes (or its failure), once. */
      const settle = async (jobId: string): Promise<void> => {
        const spec = pending.get(jobId);
        if (spec === undefined) return;
        // The state first, then the job: a job read before it completed has no return value yet.
        // (failedReason alone says nothing: a job that failed an attempt keeps it when it later
        // completes.)
        const state = await queue.getJobState(jobId);
        if (state !== "completed" && state !== "failed" && state !== "unknown") return;
        const job = await Job.fromId<SweepJobData, SweepJobResult>(queue, jobId);
        if (!pending.has(jobId)) return;
        if (job === undefined) {
          pending.delete(jobId);
          throw new SweepCancelledError(
            `job ${jobId} of sweep ${config.id} is gone from the queue (cancelled?)`,
          );
        }
        if (state === "completed" && job.returnvalue !== null) {
          pending.delete(jobId);
          for (const r of job.returnvalue.runs)
            give({ outcome: r.outcome, equity: decodeEquity(r.equity), lease: null });
        } else if (state === "failed") {
          pending.delete(jobId);
          for (const item of spec.items)
            give({ outcome: failedOutcome(item, job.failedReason), equity: null, lease: null });
        }
      };
      const failed: { error: Error | null } = { error: null };
      const settleSafely = (jobId: string) =>
        settle(jobId).then(poke, (err: Error) => {
          failed.error = err;
          poke();
        });
      events.on("completed", ({ jobId }) => void settleSafely(jobId));
      events.on("failed", ({ jobId }) => void settleSafely(jobId));
      void events.run();
      await events.waitUntilReady();
      await flows.add({
        name: "sweep",
        queueName: SWEEPS_QUEUE,
        data: { sweepId: config.id, dir: o.dir, total: p.combos.length },
        opts: { jobId: config.id },
        children,
      });
      // Jobs done before the events were listened to (a resume): their results are read now.
      while (pending.size > 0 && !stopped && failed.error === null) {
        for (const jobId of [...pending.keys()])
          await settle(jobId).catch((err: Error) => {
            failed.error = err;
          });
        if (pending.size === 0 || stopped || failed.error !== null) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, POLL_MS);
        });
      }
      if (failed.error !== null && !(failed.error instanceof SweepCancelledError))
        throw failed.error;
      if (pending.size === 0) await removeSweepJobs(queue, config.id);
      return { stopped: pending.size > 0 };
    } finally {
      await Promise.allSettled([events.close(), flows.close(), queue.close()]);
      for (const c of connections) c.disconnect();
    }
  };
}

/**
 * Every result read: the sweep's jobs leave Redis (their return values hold each curve, which
 * would fill its memory sweep after sweep). A kill before the lines are flushed costs a resume
 * their re-run, nothing more.
 */
async function removeSweepJobs(queue: Queue, sweepId: string): Promise<void> {
  const sweeps = new Queue(SWEEPS_QUEUE, { connection: queue.opts.connection });
  try {
    const parent = await Job.fromId(sweeps, sweepId);
    await parent?.remove({ removeChildren: true });
  } catch {
    // A job still locked (taken over, its old worker not yet told): `queue cancel` clears it.
  } finally {
    await sweeps.close();
  }
}

function failedOutcome(
  item: { index: number; settings: CombinationOutcome["settings"] },
  reason: string,
): CombinationOutcome {
  return {
    index: item.index,
    settings: item.settings,
    status: "failed",
    error: { type: JOB_FAILED_ERROR, message: `its job failed on every attempt: ${reason}` },
    metrics: null,
    nullReasons: {},
    trades: { closed: 0, openAtEnd: 0, dataEnded: 0 },
    orders: countOrders([]),
  };
}
