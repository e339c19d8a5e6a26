import type { Millis } from "../../engine/types.js";
import { DAY_MS, startOfDay } from "../sim-time.js";

/** Journals of this many calendar days (the as-of day included) stay recallable in full. */
export const JOURNAL_RECALL_DAYS = 5;
/** Weekly reviews cover the last ~month; monthly reviews take over for anything older. */
export const WEEKLY_REVIEW_DAYS = 31;

export interface Eligibility {
  /** The simulated now: nothing dated after it is eligible. null = the user's view. */
  asOf: Millis | null;
  /** Apply the decay tiers (only meaningful with asOf). */
  decay: boolean;
}

/**
 * A SQL condition on `chunks c` (with its named parameters) selecting the chunks the agent could
 * recall at `asOf`: nothing written later, and with decay the tiers of SPEC §6 (seed 000):
 * journals of the last JOURNAL_RECALL_DAYS days, weekly reviews written within
 * WEEKLY_REVIEW_DAYS, monthly reviews written before that; the playbook, notes and undated files
 * (presets, copies from an earlier run) always. Kept in SQL so FTS ranking and LIMIT see only
 * eligible chunks.
 */
export function eligibilitySql(e: Eligibility): { where: string; params: Record<string, number> } {
  if (e.asOf === null) return { where: "1", params: {} };
  const params: Record<string, number> = { asOf: e.asOf };
  const visible = "(c.at IS NULL OR c.at <= @asOf)";
  if (!e.decay) return { where: visible, params };
  params.journalFloor = startOfDay(e.asOf) - JOURNAL_RECALL_DAYS * DAY_MS;
  params.weekFloor = e.asOf - WEEKLY_REVIEW_DAYS * DAY_MS;
  const tiers = `(c.tier = 'always'
    OR (c.tier = 'journal' AND c.tier_at > @journalFloor)
    OR (c.tier = 'week' AND (c.tier_at IS NULL OR c.tier_at >= @weekFloor))
    OR (c.tier = 'month' AND (c.tier_at IS NULL OR c.tier_at < @weekFloor)))`;
  return { where: `${visible} AND ${tiers}`, params };
}
