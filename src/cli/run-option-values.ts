import { checkSetting } from "../config/check-setting.js";
import {
  AGENT_SETTINGS,
  BROKER_SETTINGS,
  DATA_SETTINGS,
  MEMORY_SETTINGS,
  OUTPUT_SETTINGS,
  RECALL_SETTINGS,
  RISK_SETTINGS,
  RUN_SETTINGS,
} from "../config/run-settings.js";
import { optionKey, type Setting, type ValuesOf } from "../config/setting.js";
import { UsageError } from "../errors/usage-error.js";
import { parseDecimal } from "../util/parse-decimal.js";
import { type RunOption, runOptions } from "./run-options.js";

/** The values one option gives its settings, each checked through the schema: numbers read
 * in decimal notation only, a bad one refused with the flag and the text as typed. */
function optionValues(option: RunOption, raw: unknown): unknown[] {
  const { flag, setting, settings } = option;
  if (raw === undefined) {
    const fromEnv = setting.env === undefined ? undefined : process.env[setting.env];
    if (fromEnv !== undefined) return [checkSetting(setting, fromEnv, `$${setting.env}`)];
    return settings.map((s) => checkSetting(s, undefined, flag));
  }
  if (setting.kind === "number") {
    const parts = settings.length > 1 ? String(raw).split(",") : [String(raw)];
    const names = (setting.arg ?? "").replace(/[<>]/g, "");
    if (parts.length !== settings.length) {
      const example = settings.map((s) => s.default).join(",");
      throw new UsageError(`${flag} takes two numbers: ${names} (e.g. ${example}).`);
    }
    return settings.map((s, k) => {
      const text = parts[k] as string;
      const subject = settings.length > 1 ? `${flag} (${names.split(",")[k]})` : flag;
      return checkSetting(s, parseDecimal(text), subject, JSON.stringify(text));
    });
  }
  if (setting.kind === "list" && setting.choices) return [choiceList(flag, setting, raw)];
  return [checkSetting(setting, raw, flag, JSON.stringify(raw))];
}

/** `--moments eod,fill` (any subset, comma-separated; "none", or `--no-moments`, for none). */
function choiceList(flag: string, setting: Setting, raw: unknown): unknown {
  if (raw === false) return [];
  const value = String(raw).trim();
  if (value === "none" || value === "") return [];
  const names = value.split(",").map((k) => k.trim());
  return checkSetting(setting, [...new Set(names)], flag, JSON.stringify(raw));
}

/** Settings outside `run`'s (added by addSettingOptions) from commander's options, checked as
 * run's are, with their defaults. */
export function settingValuesOf<T extends Readonly<Record<string, Setting>>>(
  settings: T,
  opts: Readonly<Record<string, unknown>>,
): ValuesOf<T> {
  const out: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(settings)) {
    if (setting.flag === undefined) continue;
    const option: RunOption = { flag: setting.flag, setting, settings: [setting] };
    out[key] = optionValues(option, opts[optionKey(setting.flag)])[0];
  }
  return out as ValuesOf<T>;
}

/** A group's settings from commander's options, in the group's key order. */
function groupOf<T extends Readonly<Record<string, Setting>>>(
  settings: T,
  options: readonly RunOption[],
  opts: Readonly<Record<string, unknown>>,
): ValuesOf<T> {
  const out: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(settings)) {
    const option = options.find((o) => o.settings.includes(setting));
    if (option === undefined) continue;
    const values = optionValues(option, opts[optionKey(option.flag)]);
    out[key] = values[option.settings.indexOf(setting)];
  }
  return out as ValuesOf<T>;
}

/** Every setting of `agenticbt run` from commander's options: checked, with their defaults. */
export function runSettingsOf(opts: Readonly<Record<string, unknown>>) {
  const options = runOptions();
  return {
    broker: {
      ...groupOf(BROKER_SETTINGS, options, opts),
      risk: groupOf(RISK_SETTINGS, options, opts),
    },
    data: groupOf(DATA_SETTINGS, options, opts),
    run: groupOf(RUN_SETTINGS, options, opts),
    memory: groupOf(MEMORY_SETTINGS, options, opts),
    recall: groupOf(RECALL_SETTINGS, options, opts),
    agent: groupOf(AGENT_SETTINGS, options, opts),
    output: groupOf(OUTPUT_SETTINGS, options, opts),
  };
}

export type RunSettings = ReturnType<typeof runSettingsOf>;

/** The output settings alone (`--json`, `--quiet`, `--metrics`, `--ui`), checked: they apply to
 * every run, a resumed or replayed one too, whose own settings come from its config.json. */
export function checkOutputSettings(opts: Readonly<Record<string, unknown>>): void {
  groupOf(OUTPUT_SETTINGS, runOptions(), opts);
}
