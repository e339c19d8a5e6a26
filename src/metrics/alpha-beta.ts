import { because, type Computed } from "./computed.js";

/** What beta reads of a benchmark curve alone: its log returns, their mean and sum of squared
 * deviations (null when the curve reaches 0 or below). */
export interface BenchmarkReturns {
  logs: Float64Array;
  meanB: number;
  bb: number;
}

/**
 * The benchmark's part of beta, for curves measured against it again and again (a sweep's
 * combinations): the same numbers, summed in the same order, as `computeBeta` computes inline.
 */
export function benchmarkReturns(benchmark: Float64Array): BenchmarkReturns | null {
  if (benchmark.length < 3 || !allPositive(benchmark)) return null;
  const n = benchmark.length - 1;
  const logs = new Float64Array(n);
  let sumB = 0;
  for (let i = 1; i <= n; i++) {
    const b = Math.log(benchmark[i]! / benchmark[i - 1]!);
    logs[i - 1] = b;
    sumB += b;
  }
  const meanB = sumB / n;
  let bb = 0;
  for (let i = 0; i < n; i++) bb += (logs[i]! - meanB) * (logs[i]! - meanB);
  return { logs, meanB, bb };
}

/**
 * Beta of the strategy against the benchmark from per-bar log returns, cov(s, b) / var(b), as
 * backtesting.py computes it (sample covariance and variance, ddof = 1). The log returns are
 * computed again in each of the two passes rather than held: at a million bars, two arrays of them
 * would be 16 MB at the end of the run, when its memory peaks. `known`: the benchmark's part,
 * computed once already (`benchmarkReturns` of this same benchmark).
 */
export function computeBeta(
  equity: Float64Array,
  benchmark: Float64Array,
  known?: BenchmarkReturns | null,
): Computed {
  if (benchmark.length !== equity.length) {
    return because("the benchmark curve is not the same length as the equity curve");
  }
  if (equity.length < 3) return because("needs at least 3 bars (two returns) for a covariance");
  if (!allPositive(equity) || (known === undefined ? !allPositive(benchmark) : known === null)) {
    return because("equity or benchmark reached 0 or below, so log returns are undefined");
  }
  const n = equity.length - 1;
  if (known) return betaAgainst(equity, known, n);
  let sumS = 0;
  let sumB = 0;
  for (let i = 1; i <= n; i++) {
    sumS += Math.log(equity[i]! / equity[i - 1]!);
    sumB += Math.log(benchmark[i]! / benchmark[i - 1]!);
  }
  const meanS = sumS / n;
  const meanB = sumB / n;
  let bb = 0;
  let sb = 0;
  for (let i = 1; i <= n; i++) {
    const s = Math.log(equity[i]! / equity[i - 1]!);
    const b = Math.log(benchmark[i]! / benchmark[i - 1]!);
    bb += (b - meanB) * (b - meanB);
    sb += (s - meanS) * (b - meanB);
  }
  const benchVariance = bb / (n - 1);
  if (benchVariance === 0) return because("the benchmark never moves: its variance is 0");
  return sb / (n - 1) / benchVariance;
}

/** computeBeta's second half with the benchmark's log returns given. */
function betaAgainst(equity: Float64Array, known: BenchmarkReturns, n: number): Computed {
  const { logs, meanB, bb } = known;
  let sumS = 0;
  for (let i = 1; i <= n; i++) sumS += Math.log(equity[i]! / equity[i - 1]!);
  const meanS = sumS / n;
  let sb = 0;
  for (let i = 1; i <= n; i++) {
    const s = Math.log(equity[i]! / equity[i - 1]!);
    sb += (s - meanS) * (logs[i - 1]! - meanB);
  }
  const benchVariance = bb / (n - 1);
  if (benchVariance === 0) return because("the benchmark never moves: its variance is 0");
  return sb / (n - 1) / benchVariance;
}

function allPositive(values: Float64Array): boolean {
  for (let i = 0; i < values.length; i++) if (!(values[i]! > 0)) return false;
  return true;
}

/** Jensen's alpha with a zero risk-free rate: return − β · buy-and-hold return, in percent. */
export function computeAlphaPct(
  returnPct: Computed,
  beta: Computed,
  buyHoldReturnPct: Computed,
): Computed {
  if (typeof beta !== "number") return because(`beta is undefined: ${beta.reason}`);
  if (typeof returnPct !== "number") return because(`return is undefined: ${returnPct.reason}`);
  if (typeof buyHoldReturnPct !== "number") {
    return because(`buy & hold return is undefined: ${buyHoldReturnPct.reason}`);
  }
  return returnPct - beta * buyHoldReturnPct;
}
