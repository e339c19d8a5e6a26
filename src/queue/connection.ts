import { Redis } from "ioredis";
import { UsageError } from "../errors/usage-error.js";

/** The queue of jobs the workers take (chunks of a sweep's combinations). */
export const JOBS_QUEUE = "agenticbt-jobs";
/** The flow parents, one per sweep: no worker takes them; they hold the sweep's children. */
export const SWEEPS_QUEUE = "agenticbt-sweeps";

/** How long the first contact with Redis may take before the command gives up. */
const CONNECT_TIMEOUT_MS = 10_000;

/** The URL without its password: what config.json and messages show. */
export function redactedUrl(url: string): string {
  const u = new URL(url);
  if (u.password !== "") u.password = "";
  return u.toString().replace(/\/$/, "");
}

/**
 * A connection to the queue's Redis. Commands wait through a disconnection (BullMQ needs
 * `maxRetriesPerRequest: null`): a Redis restarted mid-sweep is reconnected to, not an error.
 * `rediss://` is TLS.
 */
export function redisOf(url: string): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: null, lazyConnect: true });
  // Reconnection is ioredis's: an error event is one lost connection, not the end.
  redis.on("error", () => {});
  return redis;
}

/** Connects, or throws a UsageError naming the URL and the cause within a few seconds. */
export async function connectRedis(url: string): Promise<Redis> {
  const redis = redisOf(url);
  let last = "no answer";
  redis.on("error", (err: Error) => {
    last = err.message;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      redis.connect().then(() => redis.ping()),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(last)), CONNECT_TIMEOUT_MS);
      }),
    ]);
  } catch (err) {
    redis.disconnect();
    throw new UsageError(
      `Could not reach the queue's Redis at ${redactedUrl(url)}: ${(err as Error).message || last}. Start redis-server there, or check --queue (docs/scale-out.md).`,
    );
  } finally {
    clearTimeout(timer);
  }
  return redis;
}
