import fs from "node:fs";
import path from "node:path";
import { UsageError } from "../errors/run-errors.js";
import {
  INDEX_FILE,
  openRecallIndex,
  type RecallHealth,
  removeIndexFiles,
} from "../memory/recall/index.js";
import { runFile } from "../rundir/layout.js";
import type { ReindexOutput } from "../rundir/memory-command-schemas.js";
import { readJsonFile } from "../rundir/run-files.js";
import { processGone, readLock } from "../rundir/run-lock.js";
import { lstatOrNull, refuseSymlink } from "../util/no-follow.js";
import { equityDays } from "./recall-run.js";

/** Where the index is built before it replaces the old one, and where the old one is kept. */
export const REINDEX_TEMP_SUFFIX = ".reindex";
export const REINDEX_BACKUP_SUFFIX = ".bak";

/**
 * `agenticbt memory reindex <run>`: rebuilds a run's recall index from its memory files. The new
 * index is built beside the old one (`index.sqlite.reindex`), the old one is copied to
 * `index.sqlite.bak`, and the new one is renamed over it, so a reader sees either index, whole.
 * Embeddings are copied from the old index when it can be read. No file on the way is a link.
 * The rebuilt index numbers its states by simulated time (as a deleted index rebuilt on open),
 * not by the run's recorded write sequences: the backup keeps those.
 */
export function reindexRun(dir: string): ReindexOutput {
  refuseRunning(dir);
  const file = path.join(dir, INDEX_FILE);
  const temp = `${file}${REINDEX_TEMP_SUFFIX}`;
  const backup = `${file}${REINDEX_BACKUP_SUFFIX}`;
  for (const f of [dir, file, `${file}-wal`, `${file}-journal`, `${file}-shm`, backup]) {
    refuseSymlink(f);
  }
  // A temp left by an interrupted reindex is not an index anyone reads.
  removeIndexFiles(temp);
  const old = lstatOrNull(file);
  let index = null;
  try {
    index = openRecallIndex(dir, { file: temp, autoSync: false, seedVectorsFrom: file });
  } catch {
    // An old index that cannot be read gives no vectors: build without them.
    removeIndexFiles(temp);
  }
  index ??= openRecallIndex(dir, { file: temp, autoSync: false });
  let health: RecallHealth;
  let vectorsKept: number;
  try {
    index.setTradingDays(equityDays(dir));
    health = index.health();
    vectorsKept = index.storedVectors();
  } finally {
    index.close();
  }
  let kept: string | null = null;
  if (old?.isFile()) {
    fs.rmSync(backup, { force: true });
    fs.copyFileSync(file, backup, fs.constants.COPYFILE_EXCL);
    kept = backup;
  }
  // Companions of the old file (a hot journal) would be applied to the new one: they go first.
  for (const suffix of ["-wal", "-journal", "-shm"]) fs.rmSync(`${file}${suffix}`, { force: true });
  fs.renameSync(temp, file);
  return {
    run: { id: path.basename(dir), dir },
    index: { ...health, lastSync: new Date().toISOString() },
    vectorsKept,
    backup: kept,
  };
}

/** A run still being written (its process alive) keeps writing its index: refused. */
function refuseRunning(dir: string): void {
  const result = readJsonFile(runFile(dir, "result"));
  const status =
    result !== null && typeof result === "object" && "status" in result ? result.status : null;
  if (status !== "running") return;
  const lock = readLock(dir);
  if (!processGone(lock)) {
    const who = lock === null ? "another process" : `pid ${lock.pid} on ${lock.host}`;
    throw new UsageError(
      `${dir} is still running (${who}) and writes its index: reindex it once the run has ended.`,
    );
  }
}
