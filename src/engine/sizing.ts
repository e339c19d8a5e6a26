import type { BrokerConfig } from "./broker-config.js";
import type { FeeModel } from "./fee-model.js";

/** Fractional units are rounded down to 1e-8 so the cost never exceeds the budget through a
 * floating-point remainder. */
const FRACTIONAL_STEP = 1e8;

/** The smallest tradable amount: 1 unit, or 1e-8 with --fractional. No position is ever left
 * smaller than this (a fill that would is widened to close exactly what is held). */
export function unitStep(config: Pick<BrokerConfig, "fractional">): number {
  return config.fractional ? 1 / FRACTIONAL_STEP : 1;
}

/** Rounds a unit count down (towards zero) to what the account may trade. */
export function roundUnits(units: number, config: BrokerConfig): number {
  const sign = units < 0 ? -1 : 1;
  const abs = Math.abs(units);
  const rounded = config.fractional
    ? Math.floor(abs * FRACTIONAL_STEP + 1e-6) / FRACTIONAL_STEP
    : Math.floor(abs + 1e-9);
  return sign * rounded;
}

/** Rounds a difference of two tradable amounts to the nearest step: both are already on the grid,
 * so rounding down would lose a whole step to a floating-point remainder (9090.90909 × 1e8 is
 * 909090908999.99994). */
export function roundToStep(units: number, config: BrokerConfig): number {
  return config.fractional
    ? Math.round(units * FRACTIONAL_STEP) / FRACTIONAL_STEP
    : Math.round(units);
}

/**
 * Units that a budget buys, commission included, so that an all-in order never overdraws:
 * floor((budget - fixed fee) / (price × (1 + commission rate))) for the rate-and-fixed model.
 */
export function unitsForBudget(
  budget: number,
  price: number,
  config: BrokerConfig,
  fees: FeeModel,
  chargeFixed: boolean,
): number {
  const linear = fees.linear;
  if (linear === null) {
    if (budget <= 0 || price <= 0) return 0;
    return largestFitting(
      budget / price,
      config,
      (n) => n * price + fees.commission(n, price, chargeFixed) <= budget,
    );
  }
  const net = budget - (chargeFixed ? linear.fixed : 0);
  if (net <= 0 || price <= 0) return 0;
  return roundUnits(net / (price * (1 + linear.rate)), config);
}

/**
 * Size (units, ≥ 0) of the target position of a weight order: the largest n whose value plus
 * every cost of the order fits the budget, n·p + rate·p·|n − held| + fixed ≤ budget, where `held`
 * is the current position measured along the target's side (negative when the order reverses it).
 * So a reversal also pays the commission on the units it closes and is never rejected for cash.
 */
export function targetUnitsForBudget(
  budget: number,
  price: number,
  held: number,
  config: BrokerConfig,
  fees: FeeModel,
  chargeFixed: boolean,
): number {
  const linear = fees.linear;
  if (price <= 0) return 0;
  if (linear === null) {
    if (budget <= 0) return 0;
    const fits = (n: number): boolean => {
      const traded = Math.abs(n - held);
      return n * price + (traded > 0 ? fees.commission(traded, price, chargeFixed) : 0) <= budget;
    };
    return largestFitting(budget / price, config, fits);
  }
  const c = linear.rate;
  const net = budget - (chargeFixed ? linear.fixed : 0);
  // From flat, from the other side (every unit held is traded too) or adding to the position
  // (only the added units pay): n·p + c·p·(n − held) ≤ net. Trimming it instead: the units sold
  // pay, so a smaller target costs more: n·p + c·p·(held − n) ≤ net.
  const n =
    held <= 0 || net >= held * price
      ? (net + c * price * held) / (price * (1 + c))
      : (net - c * price * held) / (price * (1 - c));
  return n > 0 ? roundUnits(n, config) : 0;
}

/**
 * A fee function has no closed form: the largest tradable size up to `most` that `fits`, by
 * bisection on the unit grid (about 50 fee calls at most), assuming a larger size never costs less.
 */
function largestFitting(
  most: number,
  config: BrokerConfig,
  fits: (units: number) => boolean,
): number {
  const perUnit = config.fractional ? FRACTIONAL_STEP : 1;
  let lo = 0;
  // Beyond 2^53 steps the midpoint is no longer exact and the bisection would not end.
  let hi = Math.min(Math.floor(roundUnits(most, config) * perUnit + 0.5), Number.MAX_SAFE_INTEGER);
  if (!(hi > 0)) return 0;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid / perUnit)) lo = mid;
    else hi = mid - 1;
  }
  return lo / perUnit;
}
