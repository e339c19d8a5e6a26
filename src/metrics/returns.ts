import { dayNumber, type Sampling } from "./annualisation.js";

/** One value per period: the last equity of each UTC calendar day, or every bar as it is. */
export function periodCloses(
  times: Float64Array,
  equity: Float64Array,
  sampling: Sampling,
): number[] {
  if (sampling === "bar") return Array.from(equity);
  const closes: number[] = [];
  let lastDay = Number.NaN;
  for (let i = 0; i < times.length; i++) {
    const day = dayNumber(times[i]!);
    if (day === lastDay) closes[closes.length - 1] = equity[i]!;
    else closes.push(equity[i]!);
    lastDay = day;
  }
  return closes;
}

/** Simple period-over-period returns (n values give n − 1 returns). */
export function simpleReturns(values: ArrayLike<number>): number[] {
  const out: number[] = [];
  for (let i = 1; i < values.length; i++) out.push(values[i]! / values[i - 1]! - 1);
  return out;
}

/** Natural-log returns; null if any value is not positive (the log is then undefined). */
export function logReturns(values: ArrayLike<number>): number[] | null {
  const out: number[] = [];
  for (let i = 0; i < values.length; i++) if (!(values[i]! > 0)) return null;
  for (let i = 1; i < values.length; i++) out.push(Math.log(values[i]! / values[i - 1]!));
  return out;
}

export function mean(xs: readonly number[]): number {
  let sum = 0;
  for (const x of xs) sum += x;
  return sum / xs.length;
}

/** Sample variance (ddof = 1), as pandas' `.var()`; needs at least two values. */
export function sampleVariance(xs: readonly number[]): number {
  const m = mean(xs);
  let ss = 0;
  for (const x of xs) ss += (x - m) ** 2;
  return ss / (xs.length - 1);
}

/**
 * Geometric mean return, (∏(1 + r))^(1/n) − 1, computed in log space so long series cannot
 * overflow. Null when a return is −100 % or worse: the product then has no real root.
 */
export function geometricMean(returns: readonly number[]): number | null {
  let logSum = 0;
  for (const r of returns) {
    if (!(1 + r > 0)) return null;
    logSum += Math.log1p(r);
  }
  return Math.expm1(logSum / returns.length);
}

/** Sample covariance (ddof = 1) of two equally long series. */
export function sampleCovariance(xs: readonly number[], ys: readonly number[]): number {
  const mx = mean(xs);
  const my = mean(ys);
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += (xs[i]! - mx) * (ys[i]! - my);
  return s / (xs.length - 1);
}
