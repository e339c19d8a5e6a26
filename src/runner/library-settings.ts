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

/** The data window's settings (from, to, strict, tz), each checked through the schema in that
 * order (a UsageError naming the first bad one), as their checked values. */
export function checkDataWindow(o: {
  from?: unknown;
  to?: unknown;
  strict?: unknown;
  tz?: unknown;
}) {
  return {
    from: checkSetting(DATA_SETTINGS.from, o.from, "from"),
    to: checkSetting(DATA_SETTINGS.to, o.to, "to"),
    strict: checkSetting(DATA_SETTINGS.strict, o.strict, "strict"),
    tz: checkSetting(DATA_SETTINGS.tz, o.tz, "tz"),
  };
}

/** A run's config (from the command line, a library user or a recorded config.json) with its
 * settings checked through the schema, as `agenticbt run` checks its options. */
export function checkRunConfig(config: RunConfig): RunConfig {
  const broker = checkBroker(config.broker);
  const checked: RunConfig = {
    ...config,
    // Whole real units would show every fill as a multiple of the hidden quantity factor, and a
    // model that assumes the usual starting cash could work the price level out from them.
    broker:
      config.agent?.anonymize && !broker.fractional ? { ...broker, fractional: true } : broker,
    agent:
      config.agent === null
        ? null
        : checkSettings(AGENT_SETTINGS, config.agent, { name: "agent option", prefix: "agent." }),
    recall: checkSettings(RECALL_SETTINGS, config.recall, {
      name: "recall option",
      prefix: "recall.",
    }),
  };
  checkDataWindow(config);
  checkSetting(DATA_SETTINGS.timeUnit, config.timeUnit, "timeUnit");
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
