import path from "node:path";
import {
  AGENT_SETTINGS,
  BROKER_SETTINGS,
  DATA_SETTINGS,
  DEFAULT_AGENT_OPTIONS,
  DEFAULT_BROKER_CONFIG,
  DEFAULT_RECALL_OPTIONS,
  MEMORY_SETTINGS,
  OUTPUT_SETTINGS,
  RECALL_SETTINGS,
  RISK_SETTINGS,
  RUN_SETTINGS,
} from "../../src/config/run-settings.js";
import type { Setting } from "../../src/config/setting.js";
import { backtest } from "../../src/runner/backtest.js";
import { runBacktest } from "../../src/runner/run-backtest.js";
import type { RunConfig } from "../../src/runner/run-config.js";
import { DATA, ROOT } from "../helpers/cli.js";

// One bad value for every numeric and choice setting: out of its range (or not whole), and not a
// number at all; a name that is none of the choices. Each case says how the command line is given
// it, and how the library is (backtest() for what it takes, runBacktest() for the rest).

export const STRATEGY = path.join(ROOT, "strategies", "buy-and-hold.ts");
export const GOOG = path.join(DATA, "GOOG.csv");

export interface BadSetting {
  /** `broker.commissionRate = -1`: what the case is. */
  name: string;
  setting: Setting;
  /** The command line's arguments giving it. */
  cli: string[];
  /** Gives it to the library: a promise that must reject (null: a command-line setting only). */
  library: ((runsRoot: string) => Promise<unknown>) | null;
}

/** A value outside the range: at an exclusive bound, below a minimum, above a maximum, or half. */
function outOfRange(s: Setting & { kind: "number" }): number | null {
  const { min, above, max, integer } = s.range;
  if (above !== undefined) return above;
  if (min !== undefined) return min - 1;
  if (max !== undefined) return max + 1;
  return integer ? 0.5 : null;
}

const baseConfig = (runsRoot: string): RunConfig => ({
  strategyPath: STRATEGY,
  data: [{ file: GOOG }],
  broker: DEFAULT_BROKER_CONFIG,
  params: {},
  from: null,
  to: null,
  name: null,
  runsRoot,
  strict: false,
  tz: null,
  agent: null,
  presets: [],
  memoryFrom: null,
  recall: DEFAULT_RECALL_OPTIONS,
});

type Library = (value: unknown) => ((runsRoot: string) => Promise<unknown>) | null;

/** How the library is given each group's setting `key`. */
const LIBRARY: Record<string, (key: string) => Library> = {
  broker: (key) => (value) => () =>
    backtest({ strategy: STRATEGY, data: [GOOG], broker: { [key]: value } }),
  risk: (key) => (value) => () =>
    backtest({ strategy: STRATEGY, data: [GOOG], broker: { risk: { [key]: value } } }),
  data: (key) => (value) => (runsRoot) =>
    runBacktest({ ...baseConfig(runsRoot), [key]: value } as RunConfig),
  run: (key) => (value) => (runsRoot) =>
    runBacktest(
      key === "hookTimeout"
        ? {
            ...baseConfig(runsRoot),
            hookTimeoutMs: typeof value === "number" ? value * 1000 : (value as number),
          }
        : ({ ...baseConfig(runsRoot), [key]: value } as RunConfig),
    ),
  recall: (key) => (value) => (runsRoot) =>
    runBacktest({ ...baseConfig(runsRoot), recall: { ...DEFAULT_RECALL_OPTIONS, [key]: value } }),
  agent: (key) => (value) => (runsRoot) =>
    runBacktest({ ...baseConfig(runsRoot), agent: { ...DEFAULT_AGENT_OPTIONS, [key]: value } }),
  memory: () => () => null,
  output: () => () => null,
};

const GROUPS = {
  broker: BROKER_SETTINGS,
  risk: RISK_SETTINGS,
  data: DATA_SETTINGS,
  run: RUN_SETTINGS,
  memory: MEMORY_SETTINGS,
  recall: RECALL_SETTINGS,
  agent: AGENT_SETTINGS,
  output: OUTPUT_SETTINGS,
} as const;

/** The command line's text for one setting's value; `--recall-weights` takes both weights. */
function cliText(group: Readonly<Record<string, Setting>>, setting: Setting, raw: string): string {
  const sharing = Object.values(group).filter((s) => s.flag === setting.flag);
  if (sharing.length < 2) return raw;
  return sharing.map((s) => (s === setting ? raw : String(s.default))).join(",");
}

export function badSettings(): BadSetting[] {
  const cases: BadSetting[] = [];
  for (const [groupName, group] of Object.entries(GROUPS)) {
    const settings: Readonly<Record<string, Setting>> = group;
    for (const [key, setting] of Object.entries(settings)) {
      if (setting.flag === undefined) continue;
      const library = (LIBRARY[groupName] as (k: string) => Library)(key);
      const add = (shown: string, raw: string, value: unknown) =>
        cases.push({
          name: `${groupName}.${key} = ${shown}`,
          setting,
          cli: [setting.flag as string, cliText(settings, setting, raw)],
          library: library(value),
        });
      if (setting.kind === "number") {
        const out = outOfRange(setting);
        if (out !== null) add(String(out), String(out), out);
        add('"abc"', "abc", "abc");
      } else if (setting.kind === "choice") {
        add('"nope"', "nope", "nope");
      } else if (setting.kind === "list" && setting.choices) {
        add('["nope"]', "nope", ["nope"]);
      }
    }
  }
  return cases;
}

/** What a message says is wrong, without naming the setting or the value. */
export function reasonOf(message: string): string {
  const m = message.match(/ is not valid: (.*)$|": (use .*)$/m);
  return (m?.[1] ?? m?.[2] ?? `(no reason in: ${message})`).trim();
}
