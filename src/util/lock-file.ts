import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { threadId } from "node:worker_threads";
import { isErrnoCode } from "./errno.js";
import { lstatOrNull, readFileNoFollow, refuseSymlink } from "./no-follow.js";

/** Who holds a lock file: a process on a host (and boot, on Linux). */
export interface LockOwner {
  pid: number;
  host: string;
  /** Linux's boot id: the same pid after a reboot is another process. Null elsewhere. */
  bootId: string | null;
}

/** This process, as a lock names it. */
export function thisProcess(): LockOwner {
  return { pid: process.pid, host: os.hostname(), bootId: bootId() };
}

/** Whether `owner` is a process of this machine (same host and boot), whose pid can be asked. */
export function sameMachine(owner: LockOwner, host = os.hostname()): boolean {
  return owner.host === host && owner.bootId === bootId();
}

/** A lock from another machine last seen alive longer ago than this belongs to a dead process. */
export const STALE_AFTER_MS = 60_000;

/**
 * Whether the process `owner` names is gone: on this machine (same host and boot), its pid is not
 * alive; elsewhere, it was last seen (`lastSeenMs`) more than STALE_AFTER_MS before `now`.
 */
export function ownerGone(
  owner: LockOwner,
  lastSeenMs: number,
  now = Date.now(),
  host = os.hostname(),
): boolean {
  if (sameMachine(owner, host)) return !pidAlive(owner.pid);
  return now - lastSeenMs > STALE_AFTER_MS;
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, owned by another user.
    return !isErrnoCode(err, "ESRCH");
  }
}

let cachedBootId: string | null | undefined;

export function bootId(): string | null {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || null;
    } catch {
      cachedBootId = null;
    }
  }
  return cachedBootId;
}

let tempCounter = 0;
const tempTag = threadId === 0 ? `${process.pid}` : `${process.pid}-${threadId}`;

/**
 * Creates `file` holding `content` only if nothing is there. The content is written to a temp file
 * first and linked into place (link fails on an existing name, a link included, which is never
 * followed), so a reader never sees a lock without its holder. False when something is there.
 */
export function createExclusive(file: string, content: string): boolean {
  // Named like atomic-write's temp files, so a resume removes one a kill left behind.
  const temp = path.join(
    path.dirname(file),
    `.${path.basename(file)}.${tempTag}.${tempCounter++}.tmp`,
  );
  fs.writeFileSync(temp, content, { flag: "wx" });
  try {
    fs.linkSync(temp, file);
    return true;
  } catch (err) {
    if (isErrnoCode(err, "EEXIST")) return false;
    if (!NO_HARD_LINKS.some((code) => isErrnoCode(err, code))) throw err;
  } finally {
    fs.rmSync(temp, { force: true });
  }
  return createExclusiveInPlace(file, content);
}

/** What link() fails with on a file system without hard links (some network and FUSE mounts). */
const NO_HARD_LINKS = ["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"];

/** O_EXCL (no link followed) and the content written after: a reader may see it empty at first. */
function createExclusiveInPlace(file: string, content: string): boolean {
  const { O_CREAT, O_EXCL, O_WRONLY } = fs.constants;
  let fd: number;
  try {
    fd = fs.openSync(file, O_CREAT | O_EXCL | O_WRONLY | (fs.constants.O_NOFOLLOW ?? 0), 0o644);
  } catch (err) {
    if (isErrnoCode(err, "EEXIST")) return false;
    throw err;
  }
  try {
    fs.writeSync(fd, content);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

/** A breaker's mark older than this belongs to a process that died while breaking a lock. */
const BREAK_STALE_MS = 10_000;

/**
 * Takes the lock `file` for this process: created exclusively with `content`; a lock whose holder
 * `isStale` judges gone is removed first. Returns null once taken, or the live holder's bytes.
 *
 * Removing a stale lock is itself guarded by `<file>.break`, created exclusively: only its creator
 * removes the lock, and only after reading it again still stale, so two processes that both found
 * it stale cannot remove each other's fresh lock; they then race on the exclusive create, which
 * exactly one wins. A link at the lock's name is refused (SymlinkError), never followed.
 */
export function acquireLockFile(
  file: string,
  content: string,
  isStale: (held: Buffer) => boolean,
): Buffer | null {
  for (;;) {
    if (createExclusive(file, content)) return null;
    refuseSymlink(file);
    const held = readFileNoFollow(file);
    if (held === null) continue;
    if (!isStale(held)) return held;
    breakStaleLock(file, isStale);
  }
}

function breakStaleLock(file: string, isStale: (held: Buffer) => boolean): void {
  const breaker = `${file}.break`;
  if (!createExclusive(breaker, String(process.pid))) {
    const st = lstatOrNull(breaker);
    if (st !== null && Date.now() - st.mtimeMs > BREAK_STALE_MS)
      fs.rmSync(breaker, { force: true });
    else sleepMs(1);
    return;
  }
  try {
    const held = readFileNoFollow(file);
    if (held !== null && isStale(held)) fs.rmSync(file, { force: true });
  } finally {
    fs.rmSync(breaker, { force: true });
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocks this thread for `ms` (a lock is held for a moment: the writes under it are short). */
export function sleepMs(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}
