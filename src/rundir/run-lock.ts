import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { writeJsonAtomic } from "../util/atomic-write.js";
import { isErrnoCode } from "../util/errno.js";
import { readFileNoFollow } from "../util/no-follow.js";
import { RUN_FILE } from "./layout.js";

/** The lock file of a run directory: who runs it, and when it last showed it was alive. */
const LOCK_FILE = RUN_FILE.lock;
/** How often a running backtest rewrites its lock's heartbeat. */
export const HEARTBEAT_MS = 5_000;
/** A lock from another host whose heartbeat is older than this belongs to a dead process. */
export const STALE_AFTER_MS = 60_000;
/** What `list` and `show` say of a run that says `running` but whose process is gone. */
export const PROCESS_GONE = "interrupted (process gone)";

export interface RunLockInfo {
  pid: number;
  host: string;
  /** Linux's boot id: the same pid after a reboot is another process. Null elsewhere. */
  bootId: string | null;
  startedAt: string;
  heartbeatAt: string;
}

const lockSchema = z.object({
  pid: z.number().int().positive(),
  host: z.string(),
  bootId: z.string().nullable(),
  startedAt: z.string(),
  heartbeatAt: z.string(),
});

/**
 * Held by the process running a backtest, from the moment its run directory exists until its
 * result.json is final: `run.lock` holds the pid, the host and a heartbeat rewritten every
 * HEARTBEAT_MS (atomically, like every file of a run: a link planted there is replaced, never
 * written through). The timer is unref'd and a failed heartbeat write (a full disk) is ignored:
 * the lock only serves to tell a live run from a dead one.
 */
export class RunLock {
  private readonly file: string;
  private readonly info: RunLockInfo;
  private timer: NodeJS.Timeout | null = null;

  constructor(dir: string) {
    this.file = path.join(dir, LOCK_FILE);
    const now = new Date().toISOString();
    this.info = {
      pid: process.pid,
      host: os.hostname(),
      bootId: bootId(),
      startedAt: now,
      heartbeatAt: now,
    };
    writeJsonAtomic(this.file, this.info);
    this.timer = setInterval(() => this.beat(), HEARTBEAT_MS);
    this.timer.unref();
  }

  private beat(): void {
    this.info.heartbeatAt = new Date().toISOString();
    try {
      writeJsonAtomic(this.file, this.info);
    } catch {
      // A full disk: the pid still tells a live run on this host; the run reports the disk itself.
    }
  }

  /** Stops the heartbeat and removes the lock (result.json is final by then). */
  release(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    try {
      fs.rmSync(this.file, { force: true });
    } catch {
      // A lock left behind names a dead pid: list shows the run by its result.json status anyway.
    }
  }

  /** Stops the heartbeat but leaves the lock: result.json could not be made final. */
  abandon(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/** A run directory's lock, or null when there is none or it is not one (a link is not read). */
export function readLock(dir: string): RunLockInfo | null {
  try {
    const bytes = readFileNoFollow(path.join(dir, LOCK_FILE));
    if (bytes === null) return null;
    const parsed = lockSchema.safeParse(JSON.parse(bytes.toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * Whether the process that holds a run's lock is gone. On the same host (and boot): its pid is
 * not alive. On another host, or after a reboot: its heartbeat is older than STALE_AFTER_MS.
 * A run without a readable lock (a run by an older version) is never judged gone.
 */
export function processGone(
  lock: RunLockInfo | null,
  now = Date.now(),
  host = os.hostname(),
): boolean {
  if (lock === null) return false;
  const sameMachine = lock.host === host && lock.bootId === bootId();
  if (sameMachine) return !pidAlive(lock.pid);
  const beat = Date.parse(lock.heartbeatAt);
  return !Number.isFinite(beat) || now - beat > STALE_AFTER_MS;
}

/** result.json's status as `list`, `show`, `rm` and `prune` judge it: a `running` run whose
 * process is gone is `interrupted (process gone)`. */
export function liveStatus(dir: string, status: string): string {
  if (status !== "running") return status;
  return processGone(readLock(dir)) ? PROCESS_GONE : status;
}

/** `interrupted (process gone)` → `interrupted`: the status a filter (`prune --status`) matches. */
export function baseStatus(status: string): string {
  return status === PROCESS_GONE ? "interrupted" : status;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, owned by another user.
    return !isErrnoCode(err, "ESRCH");
  }
}

let cachedBootId: string | null | undefined;

function bootId(): string | null {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || null;
    } catch {
      cachedBootId = null;
    }
  }
  return cachedBootId;
}
