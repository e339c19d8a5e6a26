import { checkSetting, checkSettings, shownValue } from "../config/check-setting.js";
import {
  AGENT_SETTINGS,
  BROKER_SETTINGS,
  type BrokerConfig,
  DATA_SETTINGS,
  RECALL_SETTINGS,
  RISK_SETTINGS,
  RUN_SETTINGS,
} from "../config/run-settings.js";
import type { RunConfig } from "./run-config.js";

/** Other libraries' names for broker settings, so an unknown key names the one meant. */
const BROKER_ALIASES = {
  commission: "commissionRate",
  slippage: "slippageRate",
  cash: "initialCash",
} as const;

/**
 * A library user's broker settings through the settings schema: every value checked as the
 * command line checks it (a UsageError with its message), an unknown key named, defaults filled.
 */
export function checkBroker(broker: unknown): BrokerConfig {
  const checked = checkSettings(
    BROKER_SETTINGS,
    broker,
    { name: "broker option", prefix: "broker.", aliases: BROKER_ALIASES },
    ["risk"],
  );
  const risk = (broker as { risk?: unknown } | undefined)?.risk;
  return {
    ...checked,
    risk: checkSettings(RISK_SETTINGS, risk, { name: "risk limit", prefix: "broker.risk." }),
  };
}

/** A run's config (from the command line, a library user or a recorded config.json) with its
 * settings checked through the schema, as `agenticbt run` checks its options. */
export function checkRunConfig(config: RunConfig): RunConfig {
  const checked: RunConfig = {
    ...config,
    broker: checkBroker(config.broker),
    agent:
      config.agent === null
        ? null
        : checkSettings(AGENT_SETTINGS, config.agent, { name: "agent option", prefix: "agent." }),
    recall: checkSettings(RECALL_SETTINGS, config.recall, {
      name: "recall option",
      prefix: "recall.",
    }),
  };
  for (const key of ["from", "to", "strict", "tz", "timeUnit"] as const)
    checkSetting(DATA_SETTINGS[key], config[key], key);
  if (config.checkpointEvery !== undefined)
    checkSetting(RUN_SETTINGS.checkpointEvery, config.checkpointEvery, "checkpointEvery");
  const ms = config.hookTimeoutMs;
  // The setting's range is in seconds, the command line's unit.
  if (ms !== undefined && ms !== null)
    checkSetting(
      RUN_SETTINGS.hookTimeout,
      ms / 1000,
      "hookTimeoutMs / 1000",
      shownValue(ms / 1000),
    );
  return checked;
}
