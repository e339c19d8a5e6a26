/** A memory key or period key the agent (or user) supplied cannot be used as a file name. */
export class MemoryKeyError extends Error {
  override readonly name = "MemoryKeyError";
  readonly key: string;

  constructor(key: string, problem: string, expected: string) {
    super(`Invalid memory key ${showKey(key)}: ${problem}. ${expected}`);
    this.key = key;
  }
}

const KEY_SHAPE =
  'Keys are 1-100 characters of letters, digits, "_", "." and "-", do not start with "." and ' +
  'do not contain "..", e.g. "position_AAPL" or "experience.v2".';

const KEY_PATTERN = /^[A-Za-z0-9_.-]{1,100}$/;

/** Windows device names: "NUL.md" or "com1.txt.md" opens the device there, not a file. */
const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\.|$)/i;

/**
 * Returns `key` unchanged when it is safe as a single file name inside the run directory. The
 * checks are ordered so the message names the most telling problem (a traversal attempt is
 * reported as such, not as "bad character").
 */
export function validateMemoryKey(key: string): string {
  if (key.length === 0) throw new MemoryKeyError(key, "it is empty", KEY_SHAPE);
  if (key.includes("\0")) throw new MemoryKeyError(key, "it contains a NUL character", KEY_SHAPE);
  if (key.includes("/") || key.includes("\\")) {
    throw new MemoryKeyError(key, "it contains a path separator", KEY_SHAPE);
  }
  if (key.includes("..")) throw new MemoryKeyError(key, 'it contains ".."', KEY_SHAPE);
  if (key.startsWith(".")) throw new MemoryKeyError(key, 'it starts with "."', KEY_SHAPE);
  if (key.length > 100) {
    throw new MemoryKeyError(key, `it is ${key.length} characters long`, KEY_SHAPE);
  }
  if (!KEY_PATTERN.test(key)) {
    throw new MemoryKeyError(
      key,
      "it contains a character other than A-Z a-z 0-9 _ . -",
      KEY_SHAPE,
    );
  }
  if (RESERVED.test(key)) {
    throw new MemoryKeyError(key, "it is a reserved device name on Windows", KEY_SHAPE);
  }
  return key;
}

const WEEK_KEY = /^\d{4}-W(0[1-9]|[1-4]\d|5[0-3])$/;
const MONTH_KEY = /^\d{4}-(0[1-9]|1[0-2])$/;

export type ReviewPeriod = "week" | "month";

/** Checks an ISO week key ("2024-W07") or a month key ("2024-03") for `period`. */
export function validatePeriodKey(period: ReviewPeriod, periodKey: string): string {
  const ok = period === "week" ? WEEK_KEY.test(periodKey) : MONTH_KEY.test(periodKey);
  if (!ok) {
    const expected =
      period === "week"
        ? 'A week review key is an ISO week "YYYY-Www", e.g. "2024-W07".'
        : 'A month review key is "YYYY-MM", e.g. "2024-03".';
    throw new MemoryKeyError(periodKey, `it is not a ${period} key`, expected);
  }
  return periodKey;
}

/** Quoted and shortened, so a hostile key cannot flood a log or inject control characters. */
function showKey(key: string): string {
  return JSON.stringify(key.length > 60 ? `${key.slice(0, 60)}…` : key);
}
