import { FlowProducer, Job, Queue, QueueEvents } from "bullmq";
import type { Redis } from "ioredis";
import { JOB_ATTEMPTS, JOB_BACKOFF_MS } from "../config/queue-settings.js";
import { connectRedis, JOBS_QUEUE, redisOf, SWEEPS_QUEUE } from "./connection.js";

// What a coordinator (a code sweep's or an LLM experiment's) needs of BullMQ: its connections,
// its children's options, a finished child's state, and the flow's removal once all are back.

/** How often a coordinator asks for the state of the jobs it waits for, besides the events it is
 * told (an event missed while Redis was away is found this way). */
export const POLL_MS = 1000;

/** A coordinator's clients of the jobs queue: commands, its events (a connection of their own,
 * not run yet) and the flow producer. `close()` ends them all. */
export interface FlowClients {
  connection: Redis;
  queue: Queue;
  events: QueueEvents;
  flows: FlowProducer;
  close(): Promise<void>;
}

export async function openFlowClients(url: string): Promise<FlowClients> {
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
  return {
    connection,
    queue,
    events,
    flows,
    async close() {
      await Promise.allSettled([events.close(), flows.close(), queue.close()]);
      for (const c of connections) c.disconnect();
    },
  };
}

/** A child job's options: its id, retries with backoff, and a failure that does not hold its
 * flow (the coordinator records it as failed). */
export function childJobOpts(jobId: string) {
  return {
    jobId,
    attempts: JOB_ATTEMPTS,
    backoff: { type: "exponential", delay: JOB_BACKOFF_MS },
    ignoreDependencyOnFailure: true,
  };
}

/**
 * A job that has ended: completed, failed for good, or gone ("unknown": cancelled, or a Redis
 * without persistence restarted; `job` undefined then). Null while it is waiting or under way.
 * The state is read first, then the job: a job read before it completed has no return value yet
 * (and failedReason alone says nothing: a job that failed an attempt keeps it when it later
 * completes).
 */
export async function endedJob<D, R>(
  queue: Queue,
  jobId: string,
  /** Its state, when the caller read it already. */
  known?: string,
): Promise<{ state: "completed" | "failed" | "unknown"; job: Job<D, R> | undefined } | null> {
  const state = known ?? (await queue.getJobState(jobId));
  if (state !== "completed" && state !== "failed" && state !== "unknown") return null;
  return { state, job: await Job.fromId<D, R>(queue, jobId) };
}

/**
 * Every result read: the flow parent (a sweep's or an experiment's) and its jobs leave Redis
 * (their return values would fill its memory run after run).
 */
export async function removeFlow(queue: Queue, parentId: string): Promise<void> {
  const parents = new Queue(SWEEPS_QUEUE, { connection: queue.opts.connection });
  try {
    const parent = await Job.fromId(parents, parentId);
    await parent?.remove({ removeChildren: true });
  } catch {
    // A job still locked (taken over, its old worker not yet told): `queue cancel` clears it.
  } finally {
    await parents.close();
  }
}
