import type { Millis } from "../../engine/types.js";
import { type ChunkMeta, visibleAt } from "./term-index.js";

/** Journals of this many trading days (the as-of day included) stay recallable in full. */
export const JOURNAL_RECALL_DAYS = 5;

export interface Eligibility {
  /** The write sequence searched (the memory as it stood then). */
  seq: number;
  /** The simulated now: nothing dated after it is eligible. null = the user's view. */
  asOf: Millis | null;
  /** Apply the decay tiers (only meaningful with asOf). */
  decay: boolean;
  /** Midnight of the oldest journal day still recallable (the 5th last trading day), or null. */
  journalFloor: Millis | null;
  /** Months (`YYYY-MM`) that have a monthly review visible at asOf. */
  coveredMonths: ReadonlySet<string>;
}

/**
 * Which chunks the agent could recall at `asOf` from the memory as it stood at `seq`: nothing
 * written later, and with decay the calendar tiers of docs/memory-recall.md, which leave no day
 * unreachable: journals of the last JOURNAL_RECALL_DAYS trading days; weekly reviews of weeks not
 * covered by monthly reviews (a week is covered when every month its days fall in has one); monthly
 * reviews always; the playbook, notes and undated files always.
 */
export function eligibleTest(e: Eligibility): (c: ChunkMeta) => boolean {
  const { seq, asOf } = e;
  if (asOf === null) return (c) => visibleAt(c, seq);
  const dated = (c: ChunkMeta) => visibleAt(c, seq) && (c.at === null || c.at <= asOf);
  if (!e.decay) return dated;
  const floor = e.journalFloor ?? Number.MIN_SAFE_INTEGER;
  const covered = e.coveredMonths;
  return (c) => {
    if (!dated(c)) return false;
    switch (c.tier) {
      case "always":
      case "month":
        return true;
      case "journal":
        return c.tierAt !== null && c.tierAt >= floor;
      case "week":
        return (
          c.monthFirst === null ||
          c.monthLast === null ||
          !covered.has(c.monthFirst) ||
          !covered.has(c.monthLast)
        );
    }
  };
}
