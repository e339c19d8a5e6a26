// `--budget-usd`'s one rule, pure: whether one more run may start. A local experiment asks it
// before each run; a queue's worker asks it with the state its experiment keeps in Redis.

/** What a budget is held to: `--budget-usd` and the estimate made before launch. */
export interface BudgetLimit {
  usd: number | null;
  /** The launch estimate (absent: none was made, as for a replay). */
  estimate?: { runs: number; usd: { point: number } | null } | undefined;
}

/** A finished run as the budget counts it: its network calls and its bill (null: unpriced). */
export interface BilledRun {
  network: number;
  costUsd: number | null;
}

/** The spend so far and the runs in flight (not counting the one that asks). */
export interface BudgetSpend {
  /** What the finished runs were billed; null: a run's price is unknown. */
  spentUsd: number | null;
  /** Finished runs that made network calls (their mean bill is a run's estimate). */
  priced: number;
  running: number;
}

/** The spend of finished runs: a run with no network call costs nothing (cache, replay). */
export function spendOf(runs: Iterable<BilledRun>, running: number): BudgetSpend {
  let spentUsd: number | null = 0;
  let priced = 0;
  for (const r of runs) {
    if (r.network === 0) continue;
    priced += 1;
    spentUsd = r.costUsd === null || spentUsd === null ? null : spentUsd + r.costUsd;
  }
  return { spentUsd, priced, running };
}

/**
 * Why one more run may not start (null: it may): the spend plus the runs in flight and this one,
 * each at a run's estimate (the mean bill of the priced runs, or before any, the launch
 * estimate's per run), would pass the budget; or a price is unknown, so nothing can be held.
 */
export function budgetRefusal(limit: BudgetLimit, s: BudgetSpend): string | null {
  const budget = limit.usd;
  if (budget === null) return null;
  const spent = s.spentUsd;
  if (spent === null)
    return "a run's price is unknown (its model is not in the price table: --prices), so the spend cannot be held to --budget-usd";
  const estimated = limit.estimate;
  if (s.priced === 0 && estimated !== undefined && estimated.usd === null)
    return "the model's price is unknown (not in the price table: --prices), so the spend cannot be held to --budget-usd";
  const perRun = s.priced
    ? spent / s.priced
    : estimated?.usd && estimated.runs > 0
      ? estimated.usd.point / estimated.runs
      : 0;
  const next = spent + (s.running + 1) * perRun;
  if (next > budget)
    return `$${spent.toFixed(4)} spent plus ${s.running + 1} run(s) at ~$${perRun.toFixed(4)} each would pass --budget-usd ${budget}`;
  return null;
}
