import type { BrokerConfig } from "./broker-config.js";

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
 * floor((budget - fixed fee) / (price × (1 + commission rate))).
 */
export function unitsForBudget(
  budget: number,
  price: number,
  config: BrokerConfig,
  chargeFixed: boolean,
): number {
  const net = budget - (chargeFixed ? config.commissionFixed : 0);
  if (net <= 0 || price <= 0) return 0;
  return roundUnits(net / (price * (1 + config.commissionRate)), config);
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
  chargeFixed: boolean,
): number {
  const c = config.commissionRate;
  const net = budget - (chargeFixed ? config.commissionFixed : 0);
  if (price <= 0) return 0;
  // From flat, from the other side (every unit held is traded too) or adding to the position
  // (only the added units pay): n·p + c·p·(n − held) ≤ net. Trimming it instead: the units sold
  // pay, so a smaller target costs more: n·p + c·p·(held − n) ≤ net.
  const n =
    held <= 0 || net >= held * price
      ? (net + c * price * held) / (price * (1 + c))
      : (net - c * price * held) / (price * (1 - c));
  return n > 0 ? roundUnits(n, config) : 0;
}
