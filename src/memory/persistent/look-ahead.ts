import type { Millis } from "../../engine/types.js";
import type { StoreEntry } from "./persistent-store.js";

/**
 * Whether an entry could carry knowledge from after `runStart`: another run wrote it, and that
 * run's simulated window ended after the new run's first bar (it saw prices the new run has not
 * reached). An entry of the run itself is never flagged (it was written at or before the bar
 * that reads it); a hand-written entry without provenance cannot be dated and is not flagged.
 */
export function reachesPast(entry: StoreEntry, runStart: Millis, runId: string): boolean {
  const p = entry.fields.provenance;
  if (p === null || p.runId === runId) return false;
  return p.periodEnd > runStart;
}
