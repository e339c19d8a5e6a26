import { checkSetting, shownValue } from "../config/check-setting.js";
import {
  AGENT_SETTINGS,
  BROKER_SETTINGS,
  type BrokerConfig,
  DATA_SETTINGS,
  MEMORY_SETTINGS,
  OUTPUT_SETTINGS,
  RECALL_SETTINGS,
  RISK_SETTINGS,
  RUN_SETTINGS,
} from "../config/run-settings.js";
import type { Setting } from "../config/setting.js";
import { UsageError } from "../errors/usage-error.js";
import { resolveParams } from "../runner/resolve-params.js";
import type { Params } from "../strategy/types.js";
import { didYouMean } from "../util/did-you-mean.js";
import { parseDecimal } from "../util/parse-decimal.js";
import type { AxisValue } from "./constraint.js";
import { type GridValues, parseGridValues } from "./grid-values.js";

/** What an axis sets: a strategy parameter, or a broker (or risk) setting by its key. */
export type AxisTarget =
  | { kind: "param"; key: string }
  | { kind: "broker"; key: keyof typeof BROKER_SETTINGS }
  | { kind: "risk"; key: keyof typeof RISK_SETTINGS };

/** One axis of the search: its name as written, what it sets, and its values, typed. */
export interface Axis {
  name: string;
  target: AxisTarget;
  values: AxisValue[];
}

/** A combination: each axis's name → its value. */
export type Combination = Record<string, AxisValue>;

/** Settings that change how the files are read or the run is written: not an axis of a sweep. */
const NOT_AXES: readonly [Readonly<Record<string, Setting>>, string][] = [
  [DATA_SETTINGS, "it changes the data loaded; sweep each data set (or window) separately"],
  [RUN_SETTINGS, "it changes where or how a run is written, not its outcome"],
  [MEMORY_SETTINGS, "a sweep's combinations run in memory, with no memory system"],
  [RECALL_SETTINGS, "a sweep's combinations run in memory, with no memory system"],
  [AGENT_SETTINGS, "a sweep runs code strategies only"],
  [OUTPUT_SETTINGS, "it changes what is printed, not the outcome"],
];

const flagName = (s: Setting) => s.flag?.replace(/^--/, "");

function settingNamed(
  name: string,
): { target: AxisTarget; setting: Setting } | { refused: string } | null {
  for (const [key, setting] of Object.entries(BROKER_SETTINGS))
    if (key === name || flagName(setting) === name)
      return { target: { kind: "broker", key: key as keyof typeof BROKER_SETTINGS }, setting };
  for (const [key, setting] of Object.entries(RISK_SETTINGS))
    if (key === name || flagName(setting) === name)
      return { target: { kind: "risk", key: key as keyof typeof RISK_SETTINGS }, setting };
  for (const [group, why] of NOT_AXES)
    for (const [key, setting] of Object.entries(group))
      if (key === name || flagName(setting) === name) return { refused: why };
  return null;
}

/** Every name an axis may have: the parameters, then the broker's flags. */
function axisNames(params: Params): string[] {
  return [
    ...Object.keys(params),
    ...[...Object.values(BROKER_SETTINGS), ...Object.values(RISK_SETTINGS)].map(
      (s) => flagName(s) as string,
    ),
  ];
}

/** One value for a setting, checked through its schema as the command line checks it. */
function settingValue(name: string, setting: Setting, raw: AxisValue): AxisValue {
  const subject = `--grid ${name}`;
  if (setting.kind === "number") {
    const n =
      typeof raw === "number" ? raw : typeof raw === "string" ? parseDecimal(raw) : Number.NaN;
    return checkSetting(setting, n, subject, shownValue(raw)) as number;
  }
  if (setting.kind === "switch") {
    const b = raw === "true" ? true : raw === "false" ? false : raw;
    return checkSetting(setting, b, subject, shownValue(raw)) as boolean;
  }
  throw new UsageError(`${subject}: this setting cannot be an axis.`);
}

/**
 * An axis from its name and values (`--grid fast=5:50:5`, or the library's array): the name is a
 * parameter of the strategy or a broker setting (its flag, `commission`, or key, `commissionRate`);
 * every value is checked and typed as `run` would take it. A value listed twice is refused.
 */
export function resolveAxis(
  name: string,
  given: GridValues | readonly AxisValue[] | string,
  paramDefaults: Params,
): Axis {
  const values: readonly AxisValue[] =
    typeof given === "string"
      ? valuesOf(parseGridValues(name, given))
      : Array.isArray(given)
        ? given
        : valuesOf(given as GridValues);
  if (values.length === 0) throw new UsageError(`--grid ${name} has no values.`);
  let axis: Axis;
  if (name in paramDefaults) {
    const typed = values.map((v) => resolveParams(paramDefaults, { [name]: v })[name] as AxisValue);
    axis = { name, target: { kind: "param", key: name }, values: typed };
  } else {
    const found = settingNamed(name);
    if (found === null) {
      const guess = didYouMean(name, axisNames(paramDefaults));
      const params = Object.keys(paramDefaults);
      throw new UsageError(
        `--grid ${name}: not a parameter of the strategy nor a broker setting${guess ? ` (did you mean ${guess}?)` : ""}. Parameters: ${params.length ? params.join(", ") : "none"}; settings: commission, slippage, cash, allow-short… (see run --help).`,
      );
    }
    if ("refused" in found)
      throw new UsageError(`--grid ${name} cannot be an axis: ${found.refused}.`);
    const { setting, target } = found;
    axis = { name, target, values: values.map((v) => settingValue(name, setting, v)) };
  }
  const seen = new Set<AxisValue>();
  for (const v of axis.values) {
    if (seen.has(v)) throw new UsageError(`--grid ${name} lists ${shownValue(v)} twice.`);
    seen.add(v);
  }
  return axis;
}

function valuesOf(g: GridValues): AxisValue[] {
  return g.kind === "range" ? g.numbers : g.texts;
}

/** Two axes that set the same thing (`commission` and `commissionRate`) are refused. */
export function checkDistinctAxes(axes: readonly Axis[]): void {
  const seen = new Map<string, string>();
  for (const a of axes) {
    const key = `${a.target.kind}:${a.target.key}`;
    const before = seen.get(key);
    if (before !== undefined)
      throw new UsageError(`--grid ${a.name} and --grid ${before} set the same thing: keep one.`);
    seen.set(key, a.name);
  }
}

/** A combination's parameter overrides and broker settings over the sweep's own. */
export function applyCombination(
  axes: readonly Axis[],
  combo: Readonly<Combination>,
  base: { params: Params; broker: BrokerConfig },
): { params: Params; broker: BrokerConfig } {
  const params: Params = { ...base.params };
  const broker: BrokerConfig = { ...base.broker, risk: { ...base.broker.risk } };
  for (const a of axes) {
    const v = combo[a.name] as AxisValue;
    const t = a.target;
    switch (t.kind) {
      case "param":
        params[t.key] = v;
        break;
      case "broker":
        (broker as unknown as Record<string, AxisValue>)[t.key] = v;
        break;
      case "risk":
        (broker.risk as unknown as Record<string, AxisValue>)[t.key] = v;
        break;
    }
  }
  return { params, broker };
}
