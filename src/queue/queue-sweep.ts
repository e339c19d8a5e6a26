import { countOrders } from "../rundir/order-outcomes.js";
import type { CombinationOutcome, CombinationRun } from "../sweep/run-combination.js";
import type { SweepExecutor } from "../sweep/run-sweep.js";
import { JOBS_QUEUE, SWEEPS_QUEUE } from "./connection.js";
import { childJobOpts, endedJob, openFlowClients, POLL_MS, removeFlow } from "./queue-flow.js";
import {
  chunkSize,
  decodeEquity,
  fileSha256,
  jobIdOf,
  type SweepJobData,
  type SweepJobResult,
} from "./sweep-job.js";

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
    const clients = await openFlowClients(url);
    const { queue, events, flows } = clients;
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
          opts: childJobOpts(jobId),
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
        const ended = await endedJob<SweepJobData, SweepJobResult>(queue, jobId);
        if (ended === null || !pending.has(jobId)) return;
        const { state, job } = ended;
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
      // Every result read: a kill before the lines are flushed costs a resume their re-run.
      if (pending.size === 0) await removeFlow(queue, config.id);
      return { stopped: pending.size > 0 };
    } finally {
      await clients.close();
    }
  };
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
