import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { RunLockedError } from "../errors/run-errors.js";
import { writeJsonAtomic } from "../util/atomic-write.js";
import { acquireLockFile, ownerGone, thisProcess } from "../util/lock-file.js";
import { readFileNoFollow } from "../util/no-follow.js";
import { RUN_FILE } from "./layout.js";

/** The lock file of a run directory: who runs it, and when it last showed it was alive. */
const LOCK_FILE = RUN_FILE.lock;
/** How often a running backtest rewrites its lock's heartbeat. */
export const HEARTBEAT_MS = 5_000;
/** What `list` and `show` say of a run that says `running` but whose process is gone. */
export const PROCESS_GONE = "interrupted (process gone)";

export interface RunLockInfo {
  pid: number;
  host: string;
  /** Linux's boot id: the same pid after a reboot is another process. Null elsewhere. */
  bootId: string | null;
  startedAt: string;
  heartbeatAt: string;
  /** Held by `agenticbt resume` (absent: by the run that created the directory). */
  resuming?: boolean;
}

const lockSchema = z.object({
  pid: z.number().int().positive(),
  host: z.string(),
  bootId: z.string().nullable(),
  startedAt: z.string(),
  heartbeatAt: z.string(),
  resuming: z.boolean().optional(),
});

/**
 * Held by the process running a backtest, from the moment its run directory exists until its
 * result.json is final: `run.lock` holds the pid, the host and a heartbeat rewritten every
 * HEARTBEAT_MS (atomically, like every file of a run: a link planted there is replaced, never
 * written through). The timer is unref'd and a failed heartbeat write (a full disk) is ignored.
 *
 * It is taken exclusively (acquireLockFile): a resume replaces the lock of the process that died,
 * and of two resumes at once only one gets it; the other is refused (RunLockedError) before it
 * changes anything.
 */
export class RunLock {
  private readonly file: string;
  private readonly info: RunLockInfo;
  private timer: NodeJS.Timeout | null = null;

  constructor(dir: string, purpose: "run" | "resume" = "run") {
    this.file = path.join(dir, LOCK_FILE);
    const now = new Date().toISOString();
    this.info = {
      ...thisProcess(),
      startedAt: now,
      heartbeatAt: now,
      ...(purpose === "resume" ? { resuming: true } : {}),
    };
    // A lock nobody can read names no process that could still be running; an empty one is
    // being written (where the file system has no hard links, see createExclusive).
    const stale = (held: Buffer) => {
      const lock = parseLock(held);
      return lock === null ? held.length > 0 : processGone(lock);
    };
    const held = acquireLockFile(this.file, `${JSON.stringify(this.info, null, 2)}\n`, stale);
    if (held !== null) throw new RunLockedError(dir, parseLock(held));
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
    return bytes === null ? null : parseLock(bytes);
  } catch {
    return null;
  }
}

function parseLock(bytes: Buffer): RunLockInfo | null {
  try {
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
  const beat = Date.parse(lock.heartbeatAt);
  // An unreadable heartbeat counts as long ago.
  return ownerGone(lock, Number.isFinite(beat) ? beat : Number.NEGATIVE_INFINITY, now, host);
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
