import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import {
  acquireLockFile,
  ownerGone,
  sameMachine,
  sleepMs,
  thisProcess,
} from "../../util/lock-file.js";
import { StoreLockError } from "./persistent-errors.js";

/** Inside a store: held while one process writes it (not markdown, so never an entry). */
export const STORE_LOCK = ".lock";
/** How long a write waits for another process's write before giving up. */
export const STORE_LOCK_WAIT_MS = 10_000;

const holderSchema = z.object({
  pid: z.number().int().positive(),
  host: z.string(),
  bootId: z.string().nullable(),
  at: z.number(),
});

/**
 * Runs `write` holding the store's lock, so the read-modify-writes of MEMORY.md and the numbering
 * of backups/ by two processes (two runs on one namespace) never lose each other's lines or files.
 * Writes are synchronous, so a lock naming this process is a leftover, never a write in progress.
 */
export function withStoreLock<T>(dir: string, write: () => T): T {
  const file = path.join(dir, STORE_LOCK);
  const me = thisProcess();
  const deadline = Date.now() + STORE_LOCK_WAIT_MS;
  for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
    const held = acquireLockFile(file, JSON.stringify({ ...me, at: Date.now() }), stale);
    if (held === null) break;
    if (Date.now() > deadline) {
      throw new StoreLockError(
        `The persistent memory store ${dir} has been locked by another process for over ` +
          `${STORE_LOCK_WAIT_MS / 1000} s (${file}: ${held.toString("utf8").slice(0, 200)}). ` +
          "Let that run finish or stop it; if no such process exists, delete the lock file.",
      );
    }
    sleepMs(wait);
  }
  try {
    return write();
  } finally {
    fs.rmSync(file, { force: true });
  }
}

function stale(bytes: Buffer): boolean {
  // Empty: being written (where the file system has no hard links, see createExclusive).
  if (bytes.length === 0) return false;
  let holder: z.infer<typeof holderSchema>;
  try {
    const parsed = holderSchema.safeParse(JSON.parse(bytes.toString("utf8")));
    if (!parsed.success) return true;
    holder = parsed.data;
  } catch {
    return true;
  }
  // A lock naming this process is a leftover (writes are synchronous).
  if (sameMachine(holder) && holder.pid === process.pid) return true;
  return ownerGone(holder, holder.at);
}
