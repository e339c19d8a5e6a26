import type { Millis } from "../../engine/types.js";

/** Journals of this many trading days (the as-of day included) stay recallable in full. */
export const JOURNAL_RECALL_DAYS = 5;

/** A chunk row `c` is part of the memory as it stood at write sequence `@seq`. */
export const VISIBLE_SQL = "c.from_seq <= @seq AND (c.to_seq IS NULL OR c.to_seq > @seq)";

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
  coveredMonths: readonly string[];
}

/**
 * A SQL condition on `chunks c` (with its named parameters) selecting the chunks the agent could
 * recall at `asOf` from the memory as it stood at `seq`: nothing written later, and with decay
 * the calendar tiers of SPEC §6, which leave no day unreachable: journals of the last
 * JOURNAL_RECALL_DAYS trading days; weekly reviews of weeks not covered by monthly reviews (a
 * week is covered when every month its days fall in has one); monthly reviews always; the
 * playbook, notes and undated files always. Kept in SQL so ranking and LIMIT see only eligible
 * chunks.
 */
export function eligibilitySql(e: Eligibility): {
  where: string;
  params: Record<string, number | string>;
} {
  const params: Record<string, number | string> = { seq: e.seq };
  if (e.asOf === null) return { where: VISIBLE_SQL, params };
  params.asOf = e.asOf;
  const dated = `${VISIBLE_SQL} AND (c.at IS NULL OR c.at <= @asOf)`;
  if (!e.decay) return { where: dated, params };
  params.journalFloor = e.journalFloor ?? Number.MIN_SAFE_INTEGER;
  params.covered = JSON.stringify(e.coveredMonths);
  const covered = "(SELECT value FROM json_each(@covered))";
  const tiers = `(c.tier IN ('always', 'month')
    OR (c.tier = 'journal' AND c.tier_at >= @journalFloor)
    OR (c.tier = 'week' AND (c.month_first IS NULL OR c.month_first NOT IN ${covered}
      OR c.month_last NOT IN ${covered})))`;
  return { where: `${dated} AND ${tiers}`, params };
}
