import { UsageError } from "../errors/usage-error.js";
import { firstUnknownKey, guessTail } from "../util/did-you-mean.js";
import { DECIMAL_NOTATION } from "../util/parse-decimal.js";
import {
  type NumberRange,
  rangeText,
  type Setting,
  type ValueOf,
  type ValuesOf,
} from "./setting.js";
import { fieldSchema } from "./settings-schema.js";

/** "a decimal number >= 1", "a whole number > 0 and <= 1"... */
function wanted(noun: string, range: NumberRange = {}): string {
  const bounds = rangeText(range);
  return `a ${range.integer === true ? "whole " : ""}${noun}${bounds ? ` ${bounds}` : ""}`;
}

/** "s or ms", "a, b or c". */
const either = (names: readonly string[]) =>
  names.length < 2 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;

/**
 * Why `value` is not a valid value of the setting, in the words the command line and the
 * library share: `--cash "-5" is not valid: it must be a number > 0.` `subject` names the
 * setting (`--cash`, `broker.initialCash`), `shown` the value as the user wrote it.
 */
function settingMessage(
  meta: Setting,
  value: unknown,
  subject: string,
  shown: string,
  refined?: string,
): string {
  switch (meta.kind) {
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value))
        return `${subject} ${shown} is not valid: expected ${wanted("decimal number", meta.range)}, in ${DECIMAL_NOTATION}.`;
      return `${subject} ${shown} is not valid: it must be ${wanted("number", meta.range)}.`;
    case "choice":
      return `${subject} ${shown}: use ${either(meta.choices ?? [])}.`;
    case "switch":
      return `${subject} ${shown} is not valid: expected true or false.`;
    case "text":
      return refined !== undefined
        ? `${subject} ${shown}: ${refined}`
        : `${subject} ${shown} is not valid: expected a text.`;
    case "list": {
      const { choices } = meta;
      const odd =
        Array.isArray(value) && choices ? value.find((v) => !choices.includes(v)) : undefined;
      if (odd !== undefined && choices)
        return `${subject} ${shown} is not valid: ${shownValue(odd)} is none of ${either(choices)}.`;
      return `${subject} ${shown} is not valid: expected a list of ${choices ? either(choices) : "texts"}.`;
    }
    case "function":
      return `${subject} ${shown} is not valid: expected a function.`;
  }
}

/** A value as a message quotes it: text quoted, numbers as JavaScript writes them. */
export function shownValue(value: unknown): string {
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  if (typeof value === "function") return "(a function)";
  if (value === undefined) return "undefined";
  return JSON.stringify(value) ?? String(value);
}

/**
 * One setting's value through its schema: the value (its default when undefined), or a
 * UsageError saying what the setting takes.
 */
export function checkSetting<S extends Setting>(
  setting: S,
  value: unknown,
  subject: string,
  shown: string = shownValue(value),
): ValueOf<S> {
  const parsed = fieldSchema(setting).safeParse(value);
  if (parsed.success) return parsed.data as ValueOf<S>;
  // A text's own rule (not blank) speaks for itself; a number's range is the setting's.
  const rule = setting.kind === "text" && typeof value === "string" ? setting.rule : undefined;
  throw new UsageError(settingMessage(setting, value, subject, shown, rule?.message));
}

/**
 * A library's settings object through the schema: an unknown key names the one it probably
 * meant (`commission` → `commissionRate`), a bad value gets the command line's message with
 * `prefix` + key as its subject (`broker.commissionRate -0.5 is not valid: …`). Returns the
 * object with defaults, in the settings' key order. `extra`: keys checked by the caller.
 */
export function checkSettings<T extends Readonly<Record<string, Setting>>>(
  settings: T,
  value: unknown,
  what: { name: string; prefix: string; aliases?: Readonly<Record<string, string>> },
  extra: readonly string[] = [],
): ValuesOf<T> {
  const given = value === undefined ? {} : value;
  if (typeof given !== "object" || given === null || Array.isArray(given))
    throw new UsageError(
      `${what.prefix.replace(/\.$/, "")} ${shownValue(given)} is not valid: expected an object.`,
    );
  const valid = [...Object.keys(settings), ...extra];
  checkKeys(what.name, given, valid, what.aliases);
  const out: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(settings))
    out[key] = checkSetting(
      setting,
      (given as Record<string, unknown>)[key],
      `${what.prefix}${key}`,
    );
  return out as ValuesOf<T>;
}
/** An unknown key is an error naming the key it probably meant (`commission` → `commissionRate`). */
export function checkKeys(
  what: string,
  value: object,
  valid: readonly string[],
  aliases: Readonly<Record<string, string>> = {},
): void {
  const unknown = firstUnknownKey(value, valid, aliases);
  if (unknown === null) return;
  throw new UsageError(
    `Unknown ${what} ${JSON.stringify(unknown.key)}${guessTail(unknown.guess)} Valid: ${valid.join(", ")}.`,
  );
}
