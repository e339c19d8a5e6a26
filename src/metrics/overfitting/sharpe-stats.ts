import { ZERO_VOLATILITY } from "../curve-stats.js";
import { type Figure, figure, noFigure } from "../figure.js";
import { normalCdf, normalQuantile } from "./normal.js";

export type { Figure } from "../figure.js";

/**
 * Probabilistic and Deflated Sharpe Ratios (Bailey & López de Prado, "The Sharpe Ratio Efficient
 * Frontier", 2012, and "The Deflated Sharpe Ratio", 2014). Every Sharpe here is per bar, never
 * annualised: the formulas' √(T − 1) already counts the bars. docs/statistics.md works an example
 * of each.
 */

/** The Euler–Mascheroni constant γ. */
export const EULER_MASCHERONI = 0.5772156649015329;

/** Skewness needs three returns and kurtosis four: with fewer the moments are not defined. */
export const MIN_RETURNS = 4;

/** Mean, Sharpe and shape of one per-bar return series. */
export interface ReturnMoments {
  observations: number;
  mean: number;
  /** Sample standard deviation (ddof = 1). */
  std: number;
  /** mean / std; NaN when not defined (see `reason`). */
  sharpe: number;
  /** m3 / m2^1.5 from the central moments mᵢ = Σ(r − mean)ⁱ / T; NaN when not defined. */
  skewness: number;
  /** m4 / m2² (not excess: 3 for a normal distribution); NaN when not defined. */
  kurtosis: number;
  /** Why sharpe, skewness and kurtosis are NaN; null when they are numbers. */
  reason: string | null;
}

export function returnMoments(returns: ArrayLike<number>): ReturnMoments {
  const n = returns.length;
  const none = (reason: string): ReturnMoments => ({
    observations: n,
    mean: Number.NaN,
    std: Number.NaN,
    sharpe: Number.NaN,
    skewness: Number.NaN,
    kurtosis: Number.NaN,
    reason,
  });
  if (n < MIN_RETURNS)
    return none(
      `too few bars: ${n} returns, and skewness and kurtosis need at least ${MIN_RETURNS}`,
    );
  let sum = 0;
  for (let i = 0; i < n; i++) sum += returns[i]!;
  const mean = sum / n;
  if (!Number.isFinite(mean)) return none("a return is not a finite number");
  let m2 = 0;
  let m3 = 0;
  let m4 = 0;
  for (let i = 0; i < n; i++) {
    const d = returns[i]! - mean;
    const d2 = d * d;
    m2 += d2;
    m3 += d2 * d;
    m4 += d2 * d2;
  }
  const std = Math.sqrt(m2 / (n - 1));
  if (!(std > ZERO_VOLATILITY))
    return { ...none("zero variance: every return is the same, so Sharpe is not defined"), mean };
  m2 /= n;
  m3 /= n;
  m4 /= n;
  return {
    observations: n,
    mean,
    std,
    sharpe: mean / std,
    skewness: m3 / m2 ** 1.5,
    kurtosis: m4 / (m2 * m2),
    reason: null,
  };
}

/**
 * Per-bar Sharpe ratio, mean / sample standard deviation. A flat series (zero variance) scores 0
 * when its mean is 0 and ±Infinity otherwise, so that rankings (CSCV) can still order it.
 */
export function perBarSharpe(returns: ArrayLike<number>): number {
  const n = returns.length;
  if (n < 2) return Number.NaN;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += returns[i]!;
  const mean = sum / n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (returns[i]! - mean) ** 2;
  return sharpeOf(mean, Math.sqrt(ss / (n - 1)));
}

/** mean / std with perBarSharpe's rule for a flat series. */
export function sharpeOf(mean: number, std: number): number {
  if (std > ZERO_VOLATILITY) return mean / std;
  if (!Number.isFinite(mean)) return Number.NaN;
  return mean === 0 ? 0 : mean > 0 ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
}

/**
 * PSR(SR*) = Φ((SR − SR*)·√(T − 1) / √(1 − γ₃·SR + (γ₄ − 1)/4·SR²)): the probability that the true
 * Sharpe ratio exceeds the benchmark SR*, given the observed per-bar SR over T returns with
 * skewness γ₃ and (non-excess) kurtosis γ₄.
 */
export function probabilisticSharpe(input: {
  sharpe: number;
  benchmark: number;
  observations: number;
  skewness: number;
  kurtosis: number;
}): Figure {
  const { sharpe, benchmark, observations, skewness, kurtosis } = input;
  const given = { sharpe, benchmark, observations, skewness, kurtosis };
  for (const [name, v] of Object.entries(given))
    if (!Number.isFinite(v)) return noFigure(`the ${name} is not a finite number`);
  if (!Number.isInteger(observations) || observations < 2)
    return noFigure(`too few bars: ${observations} returns, and the formula needs at least 2`);
  const radicand = 1 - skewness * sharpe + ((kurtosis - 1) / 4) * sharpe * sharpe;
  if (!(radicand > 0))
    return noFigure(
      "the skewness and kurtosis given are not those of any distribution " +
        "(1 − skewness·SR + (kurtosis − 1)/4·SR² is not positive)",
    );
  return figure(
    normalCdf(((sharpe - benchmark) * Math.sqrt(observations - 1)) / Math.sqrt(radicand)),
  );
}

/**
 * E[max SR] ≈ √V·((1 − γ)·Φ⁻¹(1 − 1/N) + γ·Φ⁻¹(1 − 1/(N·e))): the expected largest of N Sharpe
 * ratios whose true value is 0 and whose estimates vary across trials with variance V. With
 * V = 0 every trial has the same Sharpe ratio, the search inflated nothing, and the figure is 0.
 */
export function expectedMaxSharpe(input: { trials: number; sharpeVariance: number }): Figure {
  const { trials, sharpeVariance } = input;
  if (!Number.isFinite(trials) || !Number.isFinite(sharpeVariance))
    return noFigure("the trial count or the Sharpe variance across trials is not a finite number");
  if (!Number.isInteger(trials) || trials < 2)
    return noFigure(
      `too few trials: ${trials}, and a best-of-N figure needs at least 2 (nothing was selected)`,
    );
  if (sharpeVariance < 0) return noFigure("the Sharpe variance across trials is negative");
  // Φ⁻¹(1 − a) as −Φ⁻¹(a): a is small, and 1 − a would round it away.
  const z =
    -(1 - EULER_MASCHERONI) * normalQuantile(1 / trials) -
    EULER_MASCHERONI * normalQuantile(1 / (trials * Math.E));
  return figure(Math.sqrt(sharpeVariance) * z);
}

/**
 * Sample variance (ddof = 1) of the trials' per-bar Sharpe ratios, the V of expectedMaxSharpe.
 * Non-finite entries (failed trials, flat series) are left out; null with fewer than 2 left.
 */
export function trialSharpeVariance(sharpes: ArrayLike<number>): Figure {
  let n = 0;
  let sum = 0;
  for (let i = 0; i < sharpes.length; i++)
    if (Number.isFinite(sharpes[i]!)) {
      n++;
      sum += sharpes[i]!;
    }
  if (n < 2) return noFigure(`too few trials with a Sharpe ratio: ${n}, and a variance needs 2`);
  const mean = sum / n;
  let ss = 0;
  for (let i = 0; i < sharpes.length; i++)
    if (Number.isFinite(sharpes[i]!)) ss += (sharpes[i]! - mean) ** 2;
  return figure(ss / (n - 1));
}

export interface DeflatedSharpe {
  /** PSR against a benchmark of 0. */
  psr: Figure;
  /** PSR against expectedMaxSharpe: the chance the best trial's true Sharpe beats luck's best. */
  dsr: Figure;
  expectedMaxSharpe: Figure;
  /** Per-bar Sharpe, skewness and kurtosis of `returns`; NaN when not defined (psr says why). */
  sharpe: number;
  skewness: number;
  kurtosis: number;
  observations: number;
}

/**
 * DSR = PSR(E[max SR]) for the best of `trials` combinations, from its per-bar returns and the
 * variance of per-bar Sharpe across the trials.
 */
export function deflatedSharpe(input: {
  returns: ArrayLike<number>;
  trials: number;
  sharpeVariance: number;
}): DeflatedSharpe {
  const m = returnMoments(input.returns);
  const expected = expectedMaxSharpe(input);
  const base = {
    expectedMaxSharpe: expected,
    sharpe: m.sharpe,
    skewness: m.skewness,
    kurtosis: m.kurtosis,
    observations: m.observations,
  };
  if (m.reason !== null) return { ...base, psr: noFigure(m.reason), dsr: noFigure(m.reason) };
  const shape = {
    sharpe: m.sharpe,
    observations: m.observations,
    skewness: m.skewness,
    kurtosis: m.kurtosis,
  };
  const psr = probabilisticSharpe({ ...shape, benchmark: 0 });
  const dsr =
    expected.value === null
      ? noFigure(expected.reason)
      : probabilisticSharpe({ ...shape, benchmark: expected.value });
  return { ...base, psr, dsr };
}
