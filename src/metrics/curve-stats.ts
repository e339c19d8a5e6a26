import { detectAnnualisation, MS_PER_DAY, yearsBetween } from "./annualisation.js";
import { because, type Computed } from "./computed.js";
import { computeDrawdowns } from "./drawdowns.js";
import { geometricMean, periodCloses, sampleVariance, simpleReturns } from "./returns.js";

/** Statistics of one equity curve, shared by the strategy and its buy-and-hold benchmark. */
export interface CurveStats {
  durationDays: Computed;
  equityFinal: Computed;
  equityPeak: Computed;
  returnPct: Computed;
  returnAnnPct: Computed;
  volatilityAnnPct: Computed;
  cagrPct: Computed;
  sharpe: Computed;
  sortino: Computed;
  calmar: Computed;
  maxDrawdownPct: Computed;
  avgDrawdownPct: Computed;
  maxDrawdownDurationDays: Computed;
  avgDrawdownDurationDays: Computed;
  periodsPerYear: Computed;
}

/**
 * Per-period standard deviations below this are rounding noise of a constant-return curve; treating
 * them as 0 keeps Sharpe from reporting 10^17 for a curve that has no risk at all.
 */
export const ZERO_VOLATILITY = 1e-12;

/** `base` is the money the curve started from (initial cash), the denominator of total return. */
export function computeCurveStats(
  times: Float64Array,
  equity: Float64Array,
  base: number,
): CurveStats {
  const n = equity.length;
  if (n === 0 || times.length !== n) {
    const why = because(n === 0 ? "no bars" : "times and equity differ in length");
    return {
      durationDays: why,
      equityFinal: why,
      equityPeak: why,
      returnPct: why,
      returnAnnPct: why,
      volatilityAnnPct: why,
      cagrPct: why,
      sharpe: why,
      sortino: why,
      calmar: why,
      maxDrawdownPct: why,
      avgDrawdownPct: why,
      maxDrawdownDurationDays: why,
      avgDrawdownDurationDays: why,
      periodsPerYear: why,
    };
  }
  const start = times[0]!;
  const end = times[n - 1]!;
  const final = equity[n - 1]!;
  const peak = highest(equity);
  const badBase = base > 0 ? null : because("the starting equity is not positive");

  const dd = computeDrawdowns(times, equity);
  const maxDd: Computed = dd.max;

  const ann = annualised(times, equity);
  const calmar: Computed =
    typeof ann.returnAnn !== "number"
      ? ann.returnAnn
      : dd.max === 0
        ? because("no drawdown: max drawdown is 0")
        : ann.returnAnn / dd.max;

  return {
    durationDays: (end - start) / MS_PER_DAY,
    equityFinal: final,
    equityPeak: peak,
    returnPct: badBase ?? ((final - base) / base) * 100,
    returnAnnPct: scale(ann.returnAnn, 100),
    volatilityAnnPct: scale(ann.volatilityAnn, 100),
    cagrPct: badBase ?? cagr(start, end, final / base),
    sharpe: ann.sharpe,
    sortino: ann.sortino,
    calmar,
    maxDrawdownPct: scale(maxDd, -100),
    avgDrawdownPct: dd.periods === 0 ? 0 : -(dd.depthSum / dd.periods) * 100,
    maxDrawdownDurationDays: dd.longestDays,
    avgDrawdownDurationDays: dd.periods === 0 ? 0 : dd.daysSum / dd.periods,
    periodsPerYear: ann.periodsPerYear,
  };
}

/**
 * The curve's highest value. Each pass over the bars is a function of its own: a loop the
 * optimizer compiles while it runs (on a sweep's first combination) leaves the code after it in
 * the same function without type feedback, and that code then deoptimizes at its first use.
 */
function highest(equity: Float64Array): number {
  let peak = equity[0]!;
  for (let i = 0; i < equity.length; i++) peak = Math.max(peak, equity[i]!);
  return peak;
}

/** Σ r² over the losing periods. */
function downsideSquares(returns: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < returns.length; i++) {
    const r = returns[i]!;
    if (r < 0) sum += r * r;
  }
  return sum;
}

function scale(value: Computed, factor: number): Computed {
  return typeof value === "number" ? value * factor : value;
}

function cagr(start: number, end: number, growth: number): Computed {
  const years = yearsBetween(start, end);
  if (years === 0) return because("the run spans no time");
  if (growth < 0) return because("equity ended below 0, so a compound rate is undefined");
  return (growth ** (1 / years) - 1) * 100;
}

/**
 * √((σ² + (1+g)²)^N − (1+g)^(2N)), or why it means nothing. `growth` is (1+g)^N. When it is
 * below a double's resolution of 1 (2^-52), the annual return is −100 % to the last bit and both
 * terms are dust: a blown account's "volatility" came out near 0 and its Sharpe −10^11 beside a
 * Sortino of −0.5. Past a double's range the first term is Infinity (Sharpe would read 0).
 */
function compoundedVolatility(variance: number, g: number, N: number, growth: number): Computed {
  if (growth < Number.EPSILON) {
    return because(
      `annualising underflows: equity compounded over a year at the mean period return ((1+g)^${N} = ${growth.toPrecision(3)}) is below a double's resolution of 1, so the annual return is −100 % to the last bit`,
    );
  }
  const secondMoment = (variance + (1 + g) ** 2) ** N;
  if (!Number.isFinite(secondMoment)) {
    return because(
      `annualising overflows: (σ² + (1+g)²)^${N} is beyond a double's range (period returns too large to compound over a year)`,
    );
  }
  return Math.sqrt(Math.max(0, secondMoment - (1 + g) ** (2 * N)));
}

interface Annualised {
  periodsPerYear: Computed;
  returnAnn: Computed;
  volatilityAnn: Computed;
  sharpe: Computed;
  sortino: Computed;
}

/**
 * Annualised return, volatility, Sharpe and Sortino from period returns, as backtesting.py computes
 * them: compounding the geometric mean period return g over N periods a year, and the volatility of
 * a compounded return, √((σ² + (1+g)²)^N − (1+g)^(2N)).
 */
function annualised(times: Float64Array, equity: Float64Array): Annualised {
  const annualisation = detectAnnualisation(times);
  if (annualisation === null) {
    const why = because("needs at least two bars with distinct timestamps to find the bar spacing");
    return { periodsPerYear: why, returnAnn: why, volatilityAnn: why, sharpe: why, sortino: why };
  }
  const N = annualisation.periodsPerYear;
  const returns = simpleReturns(periodCloses(times, equity, annualisation.sampling));
  const unit = annualisation.sampling === "day" ? "calendar days" : "bars";
  if (returns.length === 0) {
    const why = because(`needs at least two ${unit} to form a return`);
    return { periodsPerYear: N, returnAnn: why, volatilityAnn: why, sharpe: why, sortino: why };
  }
  const g = geometricMean(returns);
  if (g === null) {
    const why = because("equity fell to 0 or below, so compounded returns are undefined");
    return { periodsPerYear: N, returnAnn: why, volatilityAnn: why, sharpe: why, sortino: why };
  }
  const growth = (1 + g) ** N;
  const returnAnn = growth - 1;

  let volatilityAnn: Computed;
  if (returns.length < 2) {
    volatilityAnn = because(`needs at least three ${unit} (two returns) for a variance`);
  } else {
    const variance = sampleVariance(returns);
    volatilityAnn =
      Math.sqrt(variance) < ZERO_VOLATILITY ? 0 : compoundedVolatility(variance, g, N, growth);
  }
  const sharpe: Computed =
    typeof volatilityAnn !== "number"
      ? because(`volatility is undefined: ${volatilityAnn.reason}`)
      : volatilityAnn === 0
        ? because("volatility is 0")
        : returnAnn / volatilityAnn;

  const downside = Math.sqrt(downsideSquares(returns) / returns.length) * Math.sqrt(N);
  const sortino: Computed =
    downside < ZERO_VOLATILITY
      ? because("no losing periods: downside deviation is 0")
      : returnAnn / downside;

  return { periodsPerYear: N, returnAnn, volatilityAnn, sharpe, sortino };
}
