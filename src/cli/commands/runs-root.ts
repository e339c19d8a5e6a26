import path from "node:path";
import { DEFAULT_RUNS_DIR } from "../../config/run-settings.js";
import { escapeStrings, jsonForTerminal } from "../../util/terminal-text.js";

export const runsRootOf = (dir: string | undefined) => path.resolve(dir ?? DEFAULT_RUNS_DIR);

/**
 * A report on stdout: with `--json` the value alone as JSON, else its plain-text form, formatted
 * from a copy whose strings have their control characters made visible (stored text is hostile).
 */
export function printReport<T>(value: T, json: boolean | undefined, format: (v: T) => string) {
  process.stdout.write(`${json ? jsonForTerminal(value) : format(escapeStrings(value))}\n`);
}
