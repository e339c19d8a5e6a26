import {
  type BrokerConfig,
  DEFAULT_BROKER_CONFIG,
  type RiskLimits,
} from "../config/run-settings.js";

export { type BrokerConfig, DEFAULT_BROKER_CONFIG, type RiskLimits };

/** The defaults with `overrides` over them (the risk limits merged one by one). Unchecked: the
 * library's entry points check a broker through the settings schema. */
export function brokerConfig(
  overrides: Omit<Partial<BrokerConfig>, "risk"> & { risk?: Partial<RiskLimits> } = {},
): BrokerConfig {
  return {
    ...DEFAULT_BROKER_CONFIG,
    ...overrides,
    risk: { ...DEFAULT_BROKER_CONFIG.risk, ...(overrides.risk ?? {}) },
  };
}
