import { type BrokerConfig, DEFAULT_BROKER_CONFIG } from "../engine/broker-config.js";
import { isJsonObject } from "../util/json-object.js";

// Short labels for the broker options `list` shows when a run changed them from the default.
const BROKER_LABELS: [label: string, get: (b: BrokerConfig) => unknown][] = [
  ["cash", (b) => b.initialCash],
  ["comm", (b) => b.commissionRate],
  ["commFixed", (b) => b.commissionFixed],
  ["slip", (b) => b.slippageRate],
  ["slipTicks", (b) => b.slippageTicks],
  ["tick", (b) => b.tickSize],
  ["onClose", (b) => b.tradeOnClose],
  ["frac", (b) => b.fractional],
  ["short", (b) => b.allowShort],
  ["shortMargin", (b) => b.shortMargin],
  ["volCap", (b) => b.volumeCap],
  ["maxWeight", (b) => b.risk?.maxPositionWeight],
  ["maxPos", (b) => b.risk?.maxOpenPositions],
  ["maxGross", (b) => b.risk?.maxGrossExposure],
  ["haltDD", (b) => b.risk?.haltDrawdown],
];

const show = (v: unknown): string =>
  typeof v === "string" ? v.replace(/\s+/g, "_") : (JSON.stringify(v) ?? String(v));

/**
 * A run's key parameters in one short line, `fast=10 slow=30 comm=0.001 short`: its `--param`
 * overrides (config.json `paramOverrides`, with the values as resolved in `params`; runs written
 * before overrides were recorded show all their params), then every broker option that differs
 * from the default (flags by their label alone).
 */
export function keyParams(config: Record<string, unknown>): string {
  const parts: string[] = [];
  const params = isJsonObject(config.params) ? config.params : {};
  const keys = isJsonObject(config.paramOverrides)
    ? Object.keys(config.paramOverrides)
    : Object.keys(params);
  for (const k of keys) {
    const v = k in params ? params[k] : (config.paramOverrides as Record<string, unknown>)[k];
    parts.push(`${k}=${show(v)}`);
  }
  if (isJsonObject(config.broker)) {
    const broker = config.broker as unknown as BrokerConfig;
    for (const [label, get] of BROKER_LABELS) {
      const v = get(broker);
      if (v === undefined || v === get(DEFAULT_BROKER_CONFIG)) continue;
      parts.push(v === true ? label : `${label}=${show(v)}`);
    }
  }
  return parts.join(" ");
}
