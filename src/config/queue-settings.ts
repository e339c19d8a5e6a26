import { num, text } from "./setting.js";

// The settings of the Redis job queue (`sweep --queue`, `agenticbt worker`, `agenticbt queue`):
// flag, default, range and help once.

/** A stalled job (its worker gone) goes back to the queue after about this long. */
export const DEFAULT_LOCK_MS = 30_000;

/** A job's attempts before it is recorded as failed (a worker killed mid-job is not one). */
export const JOB_ATTEMPTS = 3;

/** The first retry's wait; each next one doubles it. */
export const JOB_BACKOFF_MS = 1000;

/** A queue URL's schemes: plain and TLS. */
export const QUEUE_URL_SCHEMES = ["redis:", "rediss:"] as const;

const isQueueUrl = (s: string): boolean => {
  try {
    return (QUEUE_URL_SCHEMES as readonly string[]).includes(new URL(s).protocol);
  } catch {
    return false;
  }
};

export const QUEUE_SETTINGS = {
  queue: text({
    group: "run",
    flag: "--queue",
    arg: "<redis-url>",
    help: "run the combinations (or an LLM experiment's runs) on `agenticbt worker` processes through this Redis (redis://[user:pass@]host:port[/db], rediss:// for TLS); docs/scale-out.md",
    rule: {
      ok: isQueueUrl,
      message: "must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379",
    },
  }),
  concurrency: num({
    group: "run",
    flag: "--concurrency",
    arg: "<n>",
    help: "jobs this worker runs at once, each in its own worker thread",
    default: 1,
    min: 1,
    max: 256,
    integer: true,
  }),
  runsDir: text({
    group: "run",
    flag: "--runs-dir",
    arg: "<dir>",
    help: "where this worker puts the run directories of LLM experiment runs (default: the coordinator's runs directory, as each job names it); a path every worker shares lets the coordinator read them",
  }),
  lockMs: num({
    group: "run",
    flag: "--lock-ms",
    arg: "<ms>",
    help: "a job whose worker is gone (killed, cut off) goes back to the queue after about this long",
    default: DEFAULT_LOCK_MS,
    min: 1000,
    integer: true,
  }),
};
