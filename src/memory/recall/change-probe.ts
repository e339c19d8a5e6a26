import fs from "node:fs";
import path from "node:path";
import { PLAYBOOK_FILE } from "../memory-layout.js";

/**
 * File systems stamp times coarsely (a kernel tick, up to 2 s on some), so a write landing in the
 * same tick as a snapshot can leave every time stamp unchanged. Anything stamped within this
 * margin of the snapshot is "racy" (as git calls it) and never trusted.
 */
export const RACY_MS = 2000;

/**
 * What is watched: the memory subdirectories and the playbook itself (its inode changes on every
 * atomic write). Not the run directory: the index's own journal files come and go there.
 */
const WATCHED = ["journal", "notes", "reviews", PLAYBOOK_FILE];

interface Snapshot {
  key: string;
  newestMs: number;
  takenAt: number;
}

/**
 * A cheap "did the memory change?" test for auto-sync: a handful of stats instead of one per
 * file. Memory writes are atomic (temp file + rename), and a rename or a new or deleted file
 * updates the directory's mtime, so any write through MemoryWorkspace shows here. An in-place
 * edit of an existing note by another tool does not: an explicit sync() (or reopening) finds it.
 */
export class ChangeProbe {
  private last: Snapshot | null = null;

  constructor(private readonly runDir: string) {}

  /** Takes a snapshot; call before a sync reads anything, then `accept` it afterwards. */
  take(): Snapshot {
    const takenAt = Date.now();
    let newestMs = 0;
    const parts = WATCHED.map((rel) => {
      const st = fs.lstatSync(path.join(this.runDir, rel), { bigint: true, throwIfNoEntry: false });
      if (st === undefined) return "-";
      newestMs = Math.max(newestMs, Number(st.mtimeMs));
      return `${st.ino}:${st.size}:${st.mtimeNs}`;
    });
    return { key: parts.join("|"), newestMs, takenAt };
  }

  accept(snapshot: Snapshot): void {
    this.last = snapshot;
  }

  /** True only when nothing watched changed since the accepted snapshot, and it was not racy. */
  unchanged(): boolean {
    const last = this.last;
    if (last === null || last.newestMs >= last.takenAt - RACY_MS) return false;
    return this.take().key === last.key;
  }
}
