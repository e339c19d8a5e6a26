import { MS_PER_DAY } from "./annualisation.js";

/** One stretch below a previous peak: from the peak bar to the bar that regains it (or the end). */
export interface DrawdownPeriod {
  readonly startIndex: number;
  readonly endIndex: number;
  readonly durationDays: number;
  /** Deepest fall within the stretch, as a positive fraction of the peak (0.1 = 10 % below). */
  readonly depth: number;
}

export interface Drawdowns {
  /** Deepest fall below the running peak, positive fraction; 0 for a curve that never falls. */
  readonly max: number;
  readonly periods: readonly DrawdownPeriod[];
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
  const periods: DrawdownPeriod[] = [];
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
      periods.push({
        startIndex: prevAtPeak,
        endIndex: i,
        durationDays: (times[i]! - times[prevAtPeak]!) / MS_PER_DAY,
        depth,
      });
    }
    prevAtPeak = i;
    depth = Math.max(0, dd);
  }
  return { max, periods };
}
