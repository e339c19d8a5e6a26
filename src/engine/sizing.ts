import type { BrokerConfig } from "./broker-config.js";

/** Fractional units are rounded down to 1e-8 so the cost never exceeds the budget through a
 * floating-point remainder. */
const FRACTIONAL_STEP = 1e8;

/** Rounds a unit count down (towards zero) to what the account may trade. */
export function roundUnits(units: number, config: BrokerConfig): number {
  const sign = units < 0 ? -1 : 1;
  const abs = Math.abs(units);
  const rounded = config.fractional
    ? Math.floor(abs * FRACTIONAL_STEP + 1e-6) / FRACTIONAL_STEP
    : Math.floor(abs + 1e-9);
  return sign * rounded;
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
