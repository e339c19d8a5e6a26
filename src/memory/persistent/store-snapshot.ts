import path from "node:path";
import { SnapshotError } from "./persistent-errors.js";
import { copyStoreFiles, storeContentHash } from "./persistent-store.js";

/** Inside a run directory: the store as the run found it, and (for a replay) its working copy. */
export const SNAPSHOT_DIR = "persistent/snapshot";
export const REPLAY_STORE_DIR = "persistent/store";

/** Copies the store into the run directory and returns the content hash of both (they match). */
export function snapshotStore(storeDir: string, runDir: string): string {
  const dest = path.join(runDir, ...SNAPSHOT_DIR.split("/"));
  copyStoreFiles(storeDir, dest, runDir);
  return storeContentHash(dest);
}

/**
 * For `--replay`: a private working copy of the recorded run's snapshot, so the replay reads
 * exactly what the recorded run read and writes nothing to the live store. The copy must hash to
 * what the recorded run wrote down, or the replay cannot be exact.
 */
export function replayStoreFrom(
  recordedRunDir: string,
  runDir: string,
  recordedHash: string,
): string {
  const snapshot = path.join(recordedRunDir, ...SNAPSHOT_DIR.split("/"));
  const actual = storeContentHash(snapshot);
  if (actual !== recordedHash) {
    throw new SnapshotError(
      `Cannot replay ${recordedRunDir} with its persistent memory: the snapshot in ` +
        `${SNAPSHOT_DIR}/ hashes to ${actual.slice(0, 12)}…, but the run recorded ` +
        `${recordedHash.slice(0, 12)}…. The snapshot was changed or removed; restore it from a ` +
        "copy of the run directory.",
    );
  }
  const dest = path.join(runDir, ...REPLAY_STORE_DIR.split("/"));
  copyStoreFiles(snapshot, dest, runDir);
  return dest;
}
