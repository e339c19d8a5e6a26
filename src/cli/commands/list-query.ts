import type { RunListEntry } from "../../rundir/schemas.js";

// No runtime imports: `list`'s option choices are read when the command line is parsed.

/** What `list --status` filters on: the statuses a runner writes. */
export const LIST_STATUSES = [
  "completed",
  "failed",
  "interrupted",
  "budget_exhausted",
  "running",
] as const;

/** `list --sort` keys; each sorts the way a user scans for it (see `compareBy`). */
export const LIST_SORTS = ["date", "return", "trades", "cost", "name"] as const;
export type ListSort = (typeof LIST_SORTS)[number];

export interface ListQuery {
  status?: string;
  /** Case-insensitive substring of the strategy's or the run's name. */
  strategy?: string;
  sort: ListSort;
  limit?: number;
}

/** The rows `list` shows: filtered, sorted, then cut to the limit. */
export function queryRuns(runs: RunListEntry[], q: ListQuery): RunListEntry[] {
  const needle = q.strategy?.toLowerCase();
  const kept = runs.filter(
    (r) =>
      // `interrupted (process gone)` is an interrupted run.
      (q.status === undefined || r.status === q.status || r.status.startsWith(`${q.status} (`)) &&
      (needle === undefined ||
        [r.strategy, r.name].some((s) => s?.toLowerCase().includes(needle) === true)),
  );
  kept.sort(compareBy(q.sort));
  return q.limit === undefined ? kept : kept.slice(0, q.limit);
}

/** Highest first, runs without the number last. */
const desc = (a: number | null, b: number | null) =>
  a === b ? 0 : a === null ? 1 : b === null ? -1 : b - a;

/**
 * `date`: newest first (start time, then id, which starts with the creation time; unreadable runs
 * without a start time last); `return`, `trades`, `cost`: highest first; `name`: A to Z. Ties
 * fall back to newest first.
 */
function compareBy(sort: ListSort): (a: RunListEntry, b: RunListEntry) => number {
  const newest = (a: RunListEntry, b: RunListEntry) =>
    (b.startedAt ?? "").localeCompare(a.startedAt ?? "") ||
    (b.id < a.id ? -1 : b.id > a.id ? 1 : 0);
  const key: Record<ListSort, (a: RunListEntry, b: RunListEntry) => number> = {
    date: () => 0,
    return: (a, b) => desc(a.returnPct, b.returnPct),
    trades: (a, b) => desc(a.trades, b.trades),
    cost: (a, b) => desc(a.costUsd, b.costUsd),
    name: (a, b) => (a.name ?? a.id).localeCompare(b.name ?? b.id),
  };
  return (a, b) => key[sort](a, b) || newest(a, b);
}
