import fs from "node:fs";
import path from "node:path";
import { MEMORY_DIRS, PLAYBOOK_FILE, REPORTS_DIR, TRACES_DIR } from "../memory/memory-layout.js";
import { POLICY_OVERRIDES_FILE } from "../memory/policy/policy-sources.js";
import { POLICY_SNAPSHOTS_DIR } from "../memory/policy/policy-state.js";
import { INDEX_FILE } from "../memory/recall/index.js";
import { MEMORY_SYSTEMS } from "../memory/systems/index.js";
import { RUN_FILE } from "./layout.js";

const RESUME_DIR = RUN_FILE.resume;
const SNAPSHOT = "memory-start";

/** The memory of a run directory: what a resume rolls back. */
const MEMORY_ENTRIES: readonly string[] = [
  PLAYBOOK_FILE,
  ...MEMORY_DIRS,
  REPORTS_DIR,
  TRACES_DIR,
  ...MEMORY_SYSTEMS.flatMap((f) => f.runFiles ?? []),
  // The memory policy's run files: evolution writes them during the run.
  POLICY_OVERRIDES_FILE,
  POLICY_SNAPSHOTS_DIR,
];
/** The recall index and SQLite's side files: derived from the memory, rebuilt by the resume. */
const INDEX_ENTRIES = ["", "-wal", "-shm", "-journal"].map((s) => `${INDEX_FILE}${s}`);

/** The name atomic-write.ts gives its temp files: `.<name>.<pid>.<counter>.tmp`, or
 * `.<name>.<pid>-<thread>.<counter>.tmp` from a worker thread (equity.csv's, during the run). */
const TEMP_FILE = /^\..+\.\d+(-\d+)?\.\d+\.tmp$/;

/**
 * Copies the memory as it stands before the first bar (seeded, playbook written) to
 * `.resume/memory-start`, whole or not at all: it is built under another name and renamed.
 */
export function snapshotMemory(dir: string): void {
  const root = path.join(dir, RESUME_DIR);
  fs.mkdirSync(root, { recursive: true });
  const partial = path.join(root, `${SNAPSHOT}.partial`);
  fs.rmSync(partial, { recursive: true, force: true });
  fs.mkdirSync(partial);
  for (const entry of MEMORY_ENTRIES) copyTree(path.join(dir, entry), path.join(partial, entry));
  fs.rmSync(path.join(root, SNAPSHOT), { recursive: true, force: true });
  fs.renameSync(partial, path.join(root, SNAPSHOT));
}

export function hasMemorySnapshot(dir: string): boolean {
  return isRealDirectory(path.join(dir, RESUME_DIR, SNAPSHOT));
}

/**
 * Rolls the memory back to its snapshot: every memory file and the recall index are removed
 * (what the run wrote after its start is re-written by the re-execution) and the snapshot is
 * copied back. Returns false when there is no snapshot (killed before its first bar): the memory
 * is then left empty, to be seeded anew.
 */
export function restoreMemory(dir: string): boolean {
  for (const entry of [...MEMORY_ENTRIES, ...INDEX_ENTRIES]) {
    fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
  }
  const root = path.join(dir, RESUME_DIR);
  fs.rmSync(path.join(root, `${SNAPSHOT}.partial`), { recursive: true, force: true });
  const snapshot = path.join(root, SNAPSHOT);
  if (!isRealDirectory(snapshot)) return false;
  for (const entry of MEMORY_ENTRIES) copyTree(path.join(snapshot, entry), path.join(dir, entry));
  return true;
}

/**
 * Removes the temp files a killed atomic write left behind, anywhere below the run directory.
 * Links are neither followed nor removed. Returns the paths removed (relative).
 */
export function removeTempFiles(dir: string): string[] {
  const removed: string[] = [];
  const walk = (sub: string) => {
    const abs = path.join(dir, sub);
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
      const rel = path.join(sub, e.name);
      if (e.isDirectory()) walk(rel);
      else if (e.isFile() && TEMP_FILE.test(e.name)) {
        fs.rmSync(path.join(dir, rel), { force: true });
        removed.push(rel);
      }
    }
  };
  walk("");
  return removed;
}

/** Copies regular files and directories; a link is skipped (never followed, never copied). */
function copyTree(from: string, to: string): void {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(from);
  } catch {
    return;
  }
  if (st.isDirectory()) {
    fs.mkdirSync(to, { recursive: true });
    for (const name of fs.readdirSync(from)) copyTree(path.join(from, name), path.join(to, name));
  } else if (st.isFile()) {
    fs.copyFileSync(from, to);
  }
}

function isRealDirectory(p: string): boolean {
  try {
    return fs.lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}
