import { Job, Queue } from "bullmq";
import type { Redis } from "ioredis";
import { connectRedis, JOBS_QUEUE, SWEEPS_QUEUE } from "./connection.js";
import { dropBudget } from "./experiment-budget-store.js";

/** The states `queue status` counts, as BullMQ names them. */
export const STATUS_STATES = ["waiting", "active", "completed", "failed"] as const;
export type StatusState = (typeof STATUS_STATES)[number];

/** A job in BullMQ's other waiting states (delayed for a retry, prioritized) counts as waiting. */
const WAITING_LIKE = ["waiting", "delayed", "prioritized"] as const;

export interface QueueStatus {
  sweeps: { sweepId: string; counts: Record<StatusState, number> }[];
  workers: { name: string; addr: string; ageS: number; idleS: number }[];
}

/** The sweep id of a job's flow parent key (`bull:agenticbt-sweeps:<id>`). */
function sweepOf(parentKey: string | null): string {
  const prefix = `bull:${SWEEPS_QUEUE}:`;
  return parentKey?.startsWith(prefix) ? parentKey.slice(prefix.length) : "(no sweep)";
}

async function parentKeys(redis: Redis, ids: string[]): Promise<(string | null)[]> {
  if (ids.length === 0) return [];
  const pipeline = redis.pipeline();
  for (const id of ids) pipeline.hget(`bull:${JOBS_QUEUE}:${id}`, "parentKey");
  const replies = (await pipeline.exec()) ?? [];
  return replies.map(([, v]) => (typeof v === "string" ? v : null));
}

async function withQueue<T>(url: string, go: (q: Queue, redis: Redis) => Promise<T>): Promise<T> {
  const redis = await connectRedis(url);
  const queue = new Queue(JOBS_QUEUE, { connection: redis });
  try {
    return await go(queue, redis);
  } finally {
    await queue.close();
    redis.disconnect();
  }
}

/** `agenticbt queue status`: each sweep's jobs by state, and the workers connected now. */
export function queueStatus(url: string): Promise<QueueStatus> {
  return withQueue(url, async (queue, redis) => {
    const bySweep = new Map<string, Record<StatusState, number>>();
    for (const state of STATUS_STATES) {
      const types = state === "waiting" ? [...WAITING_LIKE] : [state];
      const ids = await queue.getRanges(types, 0, -1);
      for (const parent of await parentKeys(redis, ids)) {
        const sweepId = sweepOf(parent);
        const counts = bySweep.get(sweepId) ?? { waiting: 0, active: 0, completed: 0, failed: 0 };
        counts[state]++;
        bySweep.set(sweepId, counts);
      }
    }
    const workers = (await queue.getWorkers()).map((w) => ({
      name: (w.rawname ?? w.name ?? "").replace(/^.*:w:/, ""),
      addr: w.addr ?? "",
      ageS: Number(w.age ?? 0),
      idleS: Number(w.idle ?? 0),
    }));
    return {
      sweeps: [...bySweep]
        .map(([sweepId, counts]) => ({ sweepId, counts }))
        .sort((a, b) => (a.sweepId < b.sweepId ? -1 : 1)),
      workers,
    };
  });
}

/**
 * `agenticbt queue cancel`: removes a sweep's jobs not under way (waiting, retrying, done,
 * failed) and, once none is under way, its flow parent. Its coordinator then stops with the sweep
 * interrupted; `agenticbt resume` queues the missing combinations again.
 */
export function cancelSweep(
  url: string,
  sweepId: string,
): Promise<{ removed: number; underWay: number }> {
  return withQueue(url, async (queue, redis) => {
    const parentKey = `bull:${SWEEPS_QUEUE}:${sweepId}`;
    let removed = 0;
    let underWay = 0;
    const types = [...WAITING_LIKE, "completed", "failed", "active"] as const;
    const ids = await queue.getRanges([...types], 0, -1);
    const parents = await parentKeys(redis, ids);
    for (const [k, id] of ids.entries()) {
      if (parents[k] !== parentKey) continue;
      const job = await Job.fromId(queue, id);
      if (job === undefined) continue;
      try {
        await job.remove();
        removed++;
      } catch {
        // Locked by its worker: it finishes there, its result unread.
        underWay++;
      }
    }
    if (underWay === 0) {
      const sweeps = new Queue(SWEEPS_QUEUE, { connection: redis });
      try {
        const parent = await Job.fromId(sweeps, sweepId);
        await parent?.remove();
      } finally {
        await sweeps.close();
      }
      // An experiment's --budget-usd state goes with its jobs (a resume seeds it again).
      await dropBudget(redis, sweepId);
    }
    return { removed, underWay };
  });
}
