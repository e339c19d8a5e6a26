import { dayNumber, type Sampling } from "./annualisation.js";

/** One value per period: the last equity of each UTC calendar day, or every bar as it is.
 * Typed arrays throughout: at a million bars, growing JS arrays cost more than the arithmetic. */
export function periodCloses(
  times: Float64Array,
  equity: Float64Array,
  sampling: Sampling,
): Float64Array {
  if (sampling === "bar") return equity;
  // Sized for the days, not the bars (a minute run has ~1/1000 as many), doubled when full.
  let closes = new Float64Array(256);
  let n = 0;
  let lastDay = Number.NaN;
  for (let i = 0; i < times.length; i++) {
    const day = dayNumber(times[i]!);
    if (day === lastDay) closes[n - 1] = equity[i]!;
    else {
      if (n === closes.length) {
        const grown = new Float64Array(n * 2);
        grown.set(closes);
        closes = grown;
      }
      closes[n++] = equity[i]!;
    }
    lastDay = day;
  }
  return closes.subarray(0, n);
}

/** Simple period-over-period returns (n values give n − 1 returns). */
export function simpleReturns(values: ArrayLike<number>): Float64Array {
  const out = new Float64Array(Math.max(0, values.length - 1));
  for (let i = 1; i < values.length; i++) out[i - 1] = values[i]! / values[i - 1]! - 1;
  return out;
}

type Numbers = ArrayLike<number>;

export function mean(xs: Numbers): number {
  let sum = 0;
  for (let i = 0; i < xs.length; i++) sum += xs[i]!;
  return sum / xs.length;
}

/** Sample variance (ddof = 1), as pandas' `.var()`; needs at least two values. */
export function sampleVariance(xs: Numbers): number {
  const m = mean(xs);
  let ss = 0;
  for (let i = 0; i < xs.length; i++) ss += (xs[i]! - m) ** 2;
  return ss / (xs.length - 1);
}

/**
 * Geometric mean return, (∏(1 + r))^(1/n) − 1, computed in log space so long series cannot
 * overflow. Null when a return is −100 % or worse: the product then has no real root.
 */
export function geometricMean(returns: Numbers): number | null {
  let logSum = 0;
  for (let i = 0; i < returns.length; i++) {
    const r = returns[i]!;
    if (!(1 + r > 0)) return null;
    logSum += Math.log1p(r);
  }
  return Math.expm1(logSum / returns.length);
}
