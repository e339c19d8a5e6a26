import { MS_PER_DAY } from "./annualisation.js";

/** The drawdown periods of a curve, summed as they are found (no list of periods: a sweep
 * computes this for every combination, and an array of objects per curve slowed its first
 * combinations while the optimizer caught up with it). */
export interface Drawdowns {
  /** Deepest fall below the running peak, positive fraction; 0 for a curve that never falls. */
  readonly max: number;
  /** Stretches below a previous peak. */
  readonly periods: number;
  /** Their depths (each the deepest fall within its stretch, a positive fraction), added in
   * time order. */
  readonly depthSum: number;
  /** Their durations from the peak bar to the bar that regains it (or the end), in days: the
   * longest, and all of them added in time order. */
  readonly longestDays: number;
  readonly daysSum: number;
}

/**
 * Drawdowns the way backtesting.py counts them: the drawdown at each bar is 1 − equity / running
 * peak; a period runs from a bar at its peak to the next bar back at (or above) a peak, and a
 * drawdown still open at the last bar ends there.
 */
export function computeDrawdowns(times: Float64Array, equity: Float64Array): Drawdowns {
  // One pass, no per-bar array (a million bars): each period's depth is the running maximum of
  // the drawdowns from its start bar to its end bar, taken in that order.
  const n = equity.length;
  let peak = Number.NEGATIVE_INFINITY;
  let max = 0;
  let periods = 0;
  let depthSum = 0;
  let longestDays = 0;
  let daysSum = 0;
  let prevAtPeak = 0;
  let depth = 0;
  for (let i = 0; i < n; i++) {
    peak = Math.max(peak, equity[i]!);
    const dd = equity[i]! >= peak ? 0 : 1 - equity[i]! / peak;
    max = Math.max(max, dd);
    if (i === 0) {
      depth = Math.max(0, dd);
      continue;
    }
    depth = Math.max(depth, dd);
    const atPeak = dd === 0;
    if (!atPeak && i !== n - 1) continue;
    if (i > prevAtPeak + 1 || (!atPeak && i === n - 1)) {
      const days = (times[i]! - times[prevAtPeak]!) / MS_PER_DAY;
      periods++;
      depthSum += depth;
      longestDays = periods === 1 ? days : Math.max(longestDays, days);
      daysSum += days;
    }
    prevAtPeak = i;
    depth = Math.max(0, dd);
  }
  return { max, periods, depthSum, longestDays, daysSum };
}
