// `--budget-usd`'s one rule, pure: whether one more run may start. A local experiment asks it
// before each run; a queue's worker asks it with the state its experiment keeps in Redis.

import type { ExperimentConfig, ExperimentResultLine } from "./experiment-dir.js";
import { cellLabel } from "./experiment-plan.js";

/** What a budget is held to: `--budget-usd` and each cell's launch estimate of a run. */
export interface BudgetLimit {
  usd: number | null;
  /** A run's launch estimate ($) by cell: 0 for a code cell, null when the model's price is
   * unknown. Absent: no estimate was made (a replay). */
  cellEstimates?: readonly (number | null)[] | undefined;
}

/** A finished run as the budget counts it: its cell, its network calls and its bill (null:
 * unpriced). */
export interface BilledRun {
  cell: number;
  network: number;
  costUsd: number | null;
}

/** A finished run's line as the budget counts it. */
export function billedRunOf(line: ExperimentResultLine): BilledRun {
  return { cell: line.cell, network: line.calls.network, costUsd: line.metrics.costUsd };
}

/** The limit of an experiment: its budget, and its estimate's figure per run of each cell
 * (matched by label: a code baseline's cells are not in the estimate and cost nothing). */
export function budgetLimitOf(config: ExperimentConfig): BudgetLimit {
  const usd = config.budgetUsd ?? null;
  const estimate = config.estimate;
  if (estimate === undefined) return { usd };
  const byLabel = new Map(estimate.cells.map((c) => [c.label, c]));
  return {
    usd,
    cellEstimates: config.cells.map((cell) => {
      const e = byLabel.get(cellLabel(cell.settings));
      if (cell.code === true || e === undefined) return 0;
      return e.usd === null ? null : e.runs > 0 ? e.usd.point / e.runs : 0;
    }),
  };
}

/**
 * Why one more run of `cell` may not start (null: it may). Each run in flight and this one are
 * counted at their cell's estimate: the mean bill of the cell's finished priced runs, or before
 * any, the cell's launch estimate (with none, the mean bill of every priced run); cells differ
 * (a memory system's runs can cost several times a memoryless one's). A price that is unknown,
 * billed or estimated, refuses: nothing can be held.
 */
export function budgetRefusal(
  limit: BudgetLimit,
  finished: Iterable<BilledRun>,
  running: readonly number[],
  cell: number,
): string | null {
  const budget = limit.usd;
  if (budget === null) return null;
  let spent = 0;
  let priced = 0;
  const byCell = new Map<number, { runs: number; usd: number }>();
  for (const r of finished) {
    // A run with no network call cost nothing (cache, replay): not a sample of a run's bill.
    if (r.network === 0) continue;
    if (r.costUsd === null)
      return "a run's price is unknown (its model is not in the price table: --prices), so the spend cannot be held to --budget-usd";
    spent += r.costUsd;
    priced += 1;
    const c = byCell.get(r.cell) ?? { runs: 0, usd: 0 };
    byCell.set(r.cell, { runs: c.runs + 1, usd: c.usd + r.costUsd });
  }
  const perRun = (c: number): number | null => {
    const own = byCell.get(c);
    if (own !== undefined) return own.usd / own.runs;
    const estimated = limit.cellEstimates?.[c];
    if (estimated !== undefined) return estimated;
    return priced > 0 ? spent / priced : 0;
  };
  let ahead = 0;
  for (const c of [...running, cell]) {
    const r = perRun(c);
    if (r === null)
      return "the model's price is unknown (not in the price table: --prices), so the spend cannot be held to --budget-usd";
    ahead += r;
  }
  if (spent + ahead > budget) {
    const runs = running.length
      ? `${running.length} run(s) in flight and the next`
      : "the next run";
    return `$${spent.toFixed(4)} spent plus ~$${ahead.toFixed(4)} for ${runs} would pass --budget-usd ${budget}`;
  }
  return null;
}
