import { because, type Computed } from "./computed.js";
import { logReturns, sampleCovariance } from "./returns.js";

/**
 * Beta of the strategy against the benchmark from per-bar log returns, cov(s, b) / var(b), as
 * backtesting.py computes it.
 */
export function computeBeta(equity: Float64Array, benchmark: Float64Array): Computed {
  if (benchmark.length !== equity.length) {
    return because("the benchmark curve is not the same length as the equity curve");
  }
  if (equity.length < 3) return because("needs at least 3 bars (two returns) for a covariance");
  const s = logReturns(equity);
  const b = logReturns(benchmark);
  if (s === null || b === null) {
    return because("equity or benchmark reached 0 or below, so log returns are undefined");
  }
  const benchVariance = sampleCovariance(b, b);
  if (benchVariance === 0) return because("the benchmark never moves: its variance is 0");
  return sampleCovariance(s, b) / benchVariance;
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
