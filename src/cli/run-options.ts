import { type Command, Option } from "commander";
import { RUN_SETTINGS, SETTING_GROUPS } from "../config/run-settings.js";
import { rangeText, type Setting, type SettingGroup } from "../config/setting.js";

// `agenticbt run`'s options, made from the settings (src/config): no zod is loaded to build
// them, so `--help` stays fast. run-option-values.ts reads them back through the schema.

/** `run --help`'s heading of each group (the rest go under "Options:"). */
const HEADINGS: Partial<Record<SettingGroup, string>> = {
  agent: "LLM trader (strategies/*.md or --prompt):",
  output: "Output:",
};

/** One command-line option and the settings it gives (two for `--recall-weights fts,vec`). */
export interface RunOption {
  flag: string;
  setting: Setting;
  settings: Setting[];
}

let allRunOptions: readonly RunOption[] | null = null;

/** Every option of `agenticbt run`, in help order, one per flag (built once). */
export function runOptions(): readonly RunOption[] {
  allRunOptions ??= buildRunOptions();
  return allRunOptions;
}

function buildRunOptions(): RunOption[] {
  const byFlag = new Map<string, RunOption>();
  for (const group of SETTING_GROUPS) {
    for (const setting of Object.values(group)) {
      // A setting without a flag is the library's alone.
      if (setting.flag === undefined) continue;
      const seen = byFlag.get(setting.flag);
      if (seen) seen.settings.push(setting);
      else byFlag.set(setting.flag, { flag: setting.flag, setting, settings: [setting] });
    }
  }
  return [...byFlag.values()];
}

/** The default as help and README show it: numbers plain, text quoted, an environment
 * variable first; null when there is none to show (a switch, or decided at run time). */
export function shownDefault({ setting, settings }: RunOption): string | null {
  const values = settings.map((s) => s.default);
  if (setting.kind === "switch" || setting.kind === "list") return null;
  if (values.some((v) => v === undefined || v === null)) return null;
  const joined =
    settings.length > 1
      ? JSON.stringify(values.join(","))
      : typeof values[0] === "string"
        ? JSON.stringify(values[0])
        : String(values[0]);
  return setting.env ? `$${setting.env}, else ${joined}` : joined;
}

/** What help adds after an option's text: its choices and default. */
export function optionExtras(option: RunOption): string[] {
  const extra: string[] = [];
  const { setting } = option;
  if (setting.kind === "choice")
    extra.push(`choices: ${setting.choices.map((c) => JSON.stringify(c)).join(", ")}`);
  const shown = shownDefault(option);
  if (shown !== null) extra.push(`default: ${shown}`);
  return extra;
}

/** `-d, --data <csv...>`, as help writes an option. */
export function optionFlags({ flag, setting }: RunOption): string {
  return `${setting.short ? `${setting.short}, ` : ""}${flag}${setting.arg ? ` ${setting.arg}` : ""}`;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Adds every run option to `command`. No commander defaults: an option not given stays
 * undefined, and the settings' defaults apply when its value is read. */
export function addRunOptions(command: Command): void {
  let heading: string | undefined;
  for (const option of runOptions()) {
    const next = HEADINGS[option.setting.group];
    if (next !== undefined && next !== heading) {
      command.optionsGroup(next);
      heading = next;
    }
    addOption(command, option);
  }
}

/** The runs root's option, as every command that reads run directories takes it. */
export function runsDirOption(): Option {
  const option = runOptions().find((o) => o.setting === RUN_SETTINGS.runsDir) as RunOption;
  return new Option(optionFlags(option), helpOf(option));
}

/** Adds the run options of `settings` alone (a command that takes a few of run's). */
export function addSomeRunOptions(command: Command, settings: readonly Setting[]): void {
  for (const option of runOptions())
    if (settings.includes(option.setting)) addOption(command, option);
}

/** Adds options for settings outside `run`'s (a command's own, e.g. sweep-settings.ts), built as
 * run's are. */
export function addSettingOptions(
  command: Command,
  settings: Readonly<Record<string, Setting>>,
): void {
  for (const setting of Object.values(settings))
    if (setting.flag !== undefined)
      addOption(command, { flag: setting.flag, setting, settings: [setting] });
}

/** An option's help: its text, then its choices and default. */
function helpOf(option: RunOption): string {
  const extra = optionExtras(option);
  return extra.length > 0 ? `${option.setting.help} (${extra.join(", ")})` : option.setting.help;
}

function addOption(command: Command, option: RunOption): void {
  const { setting } = option;
  if (!setting.negate || setting.negate.both) {
    const o = new Option(optionFlags(option), helpOf(option));
    const repeated = setting.kind === "list" && !setting.variadic && !setting.choices;
    if (repeated) o.argParser(collect);
    command.addOption(o);
  }
  if (setting.negate)
    command.addOption(new Option(option.flag.replace(/^--/, "--no-"), setting.negate.help));
}

/** The values an option takes, as README's table says: range, choices, unit. */
function valuesText({ setting }: RunOption): string {
  const parts: string[] = [];
  if (setting.kind === "number") {
    const bounds = rangeText(setting.range);
    if (setting.range.integer) parts.push(bounds ? `whole, ${bounds}` : "whole");
    else if (bounds) parts.push(bounds);
  }
  if (setting.kind === "choice" || (setting.kind === "list" && setting.choices))
    parts.push((setting.choices ?? []).join(", "));
  if (setting.unit) parts.push(setting.unit);
  return parts.join("; ");
}

const cell = (s: string) => s.replace(/\|/g, "\\|");

/** README's table of `agenticbt run`'s options (between its `run-options` markers). */
export function runOptionsTable(): string {
  const rows = [["option", "default", "values", "meaning"]];
  for (const option of runOptions()) {
    const { setting } = option;
    const { negate } = setting;
    const flags = !negate || negate.both ? [`\`${cell(optionFlags(option))}\``] : [];
    if (negate) flags.push(`\`${option.flag.replace(/^--/, "--no-")}\``);
    const meaning = !negate
      ? setting.help
      : negate.both
        ? `${setting.help}; \`--no-…\`: ${negate.help}`
        : negate.help;
    rows.push([
      flags.join(", "),
      cell(shownDefault(option) ?? ""),
      cell(valuesText(option)),
      cell(meaning),
    ]);
  }
  // Padded as the formatter (biome) writes a Markdown table.
  const widths = (rows[0] as string[]).map((_, k) =>
    Math.max(...rows.map((r) => (r[k] as string).length)),
  );
  const line = (r: string[]) => `| ${r.map((c, k) => c.padEnd(widths[k] as number)).join(" | ")} |`;
  const [head, ...body] = rows;
  return [line(head as string[]), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join(
    "\n",
  );
}

/** The markers around README's table. */
export const README_OPTIONS = {
  begin: "<!-- run-options: written by `npm run docs:options` from src/config -->",
  end: "<!-- /run-options -->",
};

/** `readme` with the table between its markers made anew (unchanged when it is current). */
export function withOptionsTable(readme: string): string {
  const start = readme.indexOf(README_OPTIONS.begin);
  const end = readme.indexOf(README_OPTIONS.end);
  if (start < 0 || end < start) throw new Error("README.md has no run-options markers");
  const head = readme.slice(0, start + README_OPTIONS.begin.length);
  return `${head}\n\n${runOptionsTable()}\n\n${readme.slice(end)}`;
}
