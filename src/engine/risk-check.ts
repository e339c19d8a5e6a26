import type { RiskLimits } from "./broker-config.js";

export interface ExposureAfterFill {
  /** |units × price| of the symbol being traded, after the fill. */
  positionNotional: number;
  long: number;
  short: number;
  openPositions: number;
  equity: number;
}

/** Risk limits for a fill that adds risk, on either side (long or short). Returns the reason for
 * refusing it, or null. */
export function checkRisk(limits: RiskLimits, x: ExposureAfterFill): string | null {
  if (x.equity <= 0) return "the account has no equity left to take on risk";
  const { maxPositionWeight, maxOpenPositions, maxGrossExposure } = limits;
  if (maxPositionWeight !== null && x.positionNotional / x.equity > maxPositionWeight + 1e-12) {
    return `risk limit: position weight ${pct(x.positionNotional / x.equity)} would exceed max ${pct(maxPositionWeight)}`;
  }
  if (maxOpenPositions !== null && x.openPositions > maxOpenPositions) {
    return `risk limit: ${x.openPositions} open positions would exceed max ${maxOpenPositions}`;
  }
  const gross = (x.long + x.short) / x.equity;
  if (maxGrossExposure !== null && gross > maxGrossExposure + 1e-12) {
    return `risk limit: gross exposure ${pct(gross)} would exceed max ${pct(maxGrossExposure)}`;
  }
  return null;
}

const pct = (f: number): string => `${(f * 100).toFixed(2)}%`;
