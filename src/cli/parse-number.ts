import { checkSetting } from "../config/check-setting.js";
import { type NumberRange, optionalNum } from "../config/setting.js";
import { parseDecimal } from "../util/parse-decimal.js";

export type { NumberRange };

/**
 * Parses a numeric option of a command other than `run` (whose options are settings), with the
 * settings' rules and messages: a finite decimal number in range.
 */
export function numberOption(
  flag: string,
  raw: string | undefined,
  range: NumberRange = {},
): number | undefined {
  if (raw === undefined) return undefined;
  const setting = optionalNum({ group: "output", flag, help: "", ...range });
  return checkSetting(setting, parseDecimal(raw), flag, JSON.stringify(raw)) ?? undefined;
}
