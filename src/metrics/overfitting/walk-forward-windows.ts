import { MS_PER_DAY } from "../annualisation.js";

/**
 * Walk-forward windows: train on one span of bars, test on the span after it, move on by the test
 * span and repeat. Rolling windows keep the training span's length; anchored ones always train
 * from the first bar. Spans are bars or calendar durations (UTC).
 */

export type Span = { bars: number } | { months: number } | { days: number } | { years: number };

export interface WalkForwardSpec {
  train: Span;
  test: Span;
  anchored: boolean;
}

/** Bar indices, both ends included. */
export interface WalkForwardWindow {
  trainFrom: number;
  trainTo: number;
  testFrom: number;
  testTo: number;
}

/** A walk-forward setting that cannot be used: the message says how to write it. */
export class WalkForwardSpecError extends Error {
  override readonly name = "WalkForwardSpecError";
  readonly exitCode = 2;
}

/** The data is too short for one window of the setting. */
export class WalkForwardDataError extends Error {
  override readonly name = "WalkForwardDataError";
  readonly exitCode = 2;
}

const FORMAT =
  "train=<n>,test=<n>[,anchored], n a number of bars (500) or a duration (2y, 6m, 30d)";

/** Largest count per unit: beyond a thousand years the calendar arithmetic means nothing. */
const MAX_COUNT = { bars: 1_000_000_000, years: 1_000, months: 12_000, days: 365_000 } as const;
type Unit = keyof typeof MAX_COUNT;
const UNIT_OF_SUFFIX: Record<string, Unit> = { "": "bars", y: "years", m: "months", d: "days" };

/** Parses `train=<n>,test=<n>[,anchored]` (parts in any order, spaces around them ignored). */
export function parseWalkForward(text: string): WalkForwardSpec {
  const fail = (why: string): never => {
    throw new WalkForwardSpecError(`Walk-forward "${text}": ${why}. Write ${FORMAT}.`);
  };
  const spans: Partial<Record<"train" | "test", Span>> = {};
  let anchored = false;
  for (const raw of text.split(",")) {
    const part = raw.trim();
    if (part === "anchored") {
      if (anchored) fail('"anchored" is given twice');
      anchored = true;
      continue;
    }
    const eq = part.indexOf("=");
    const key = (eq === -1 ? part : part.slice(0, eq)).trim();
    if (key !== "train" && key !== "test")
      fail(
        part === ""
          ? "an empty part (two commas in a row, or a comma at an end)"
          : `"${part}" is not train=…, test=… or anchored`,
      );
    if (eq === -1) fail(`${key} has no value`);
    const k = key as "train" | "test";
    if (spans[k] !== undefined) fail(`${k} is given twice`);
    spans[k] = parseSpan(k, part.slice(eq + 1).trim(), fail);
  }
  if (spans.train === undefined) fail("train is missing");
  if (spans.test === undefined) fail("test is missing");
  return { train: spans.train!, test: spans.test!, anchored };
}

function parseSpan(key: string, value: string, fail: (why: string) => never): Span {
  if (value === "") return fail(`${key} has no value`);
  const plain = /^([0-9]+)([a-z]?)$/.exec(value);
  const unit = UNIT_OF_SUFFIX[plain?.[2] ?? "-"];
  if (plain && unit)
    return makeSpan(unit, Number(plain[1]), (why) => fail(`${key}=${value}: ${why}`));
  // Not plain digits and a unit: say which half is wrong.
  const loose = /^([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?)([a-z]*)$/i.exec(value);
  if (!loose) return fail(`${key}=${value} is not a number of bars or a duration`);
  const suffix = loose[2] ?? "";
  const looseUnit = UNIT_OF_SUFFIX[suffix];
  if (looseUnit === undefined)
    return fail(
      `${key}=${value}: "${suffix}" is not a unit; use y (years), m (months), d (days), or none for bars`,
    );
  const n = Number(loose[1]);
  if (!Number.isFinite(n)) return fail(`${key}=${value}: the count is not a finite number`);
  if (!Number.isInteger(n))
    return fail(
      `${key}=${value}: the count must be a whole number${looseUnit === "years" ? " (write 18m, not 1.5y)" : ""}`,
    );
  if (n < 1) return makeSpan(looseUnit, n, (why) => fail(`${key}=${value}: ${why}`));
  return fail(`${key}=${value}: write the count in plain digits (${n}${suffix})`);
}

function makeSpan(unit: Unit, n: number, fail: (why: string) => never): Span {
  if (n < 1 || n > MAX_COUNT[unit])
    fail(`${unit} must be from 1 to ${MAX_COUNT[unit].toLocaleString("en-US")}, got ${n}`);
  switch (unit) {
    case "bars":
      return { bars: n };
    case "years":
      return { years: n };
    case "months":
      return { months: n };
    case "days":
      return { days: n };
  }
}

/** A span as bars, or as a calendar step of whole months and days. */
type Step = { bars: number; months: 0; days: 0 } | { bars: 0; months: number; days: number };

function stepOf(span: Span, which: string): Step {
  const [unit, n] = unitAndCount(span);
  if (!Number.isInteger(n) || n < 1 || n > MAX_COUNT[unit])
    throw new WalkForwardSpecError(
      `Walk-forward ${which} span: ${unit} must be a whole number from 1 to ` +
        `${MAX_COUNT[unit].toLocaleString("en-US")}, got ${n}. Write ${FORMAT}.`,
    );
  if (unit === "bars") return { bars: n, months: 0, days: 0 };
  if (unit === "days") return { bars: 0, months: 0, days: n };
  return { bars: 0, months: unit === "years" ? 12 * n : n, days: 0 };
}

function unitAndCount(span: Span): [Unit, number] {
  if ("bars" in span) return ["bars", span.bars];
  if ("years" in span) return ["years", span.years];
  if ("months" in span) return ["months", span.months];
  return ["days", span.days];
}

/** t moved by whole calendar months (UTC), then days; a day past the month's end clamps to it. */
function shift(t: number, months: number, days: number): number {
  const d = new Date(t);
  const y = d.getUTCFullYear();
  const target = d.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(y, target + 1, 0)).getUTCDate();
  const moved = Date.UTC(
    y,
    target,
    Math.min(d.getUTCDate(), lastDay),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
    d.getUTCMilliseconds(),
  );
  return moved + days * MS_PER_DAY;
}

/** The first index whose time is at or after t (times.length when none is). */
function firstAtOrAfter(times: ArrayLike<number>, t: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The windows over bars at `times` (epoch ms, ascending). The first test window starts after the
 * training span from the first bar; each next one starts a test span later. Durations are counted
 * on the calendar from the first bar's time (month arithmetic summed first, so windows do not
 * drift at month ends), and a window's bars are those whose times fall inside it. The last test
 * window ends at the last bar and may be shorter. A window with no training or no test bar (a gap
 * in the data) is left out.
 */
export function walkForwardWindows(
  times: ArrayLike<number>,
  spec: WalkForwardSpec,
): WalkForwardWindow[] {
  const train = stepOf(spec.train, "train");
  const test = stepOf(spec.test, "test");
  const n = times.length;
  const windows: WalkForwardWindow[] = [];
  if (n === 0) throw new WalkForwardDataError("Walk-forward needs bars: the data has none.");
  const t0 = times[0]!;
  if (train.bars >= n) throw noWindow(spec, n);
  // Where test window k starts: a bar index, from the first test bar or the first bar's time.
  const testStartTime = (k: number) =>
    train.bars > 0
      ? shift(times[train.bars]!, test.months * k, test.days * k)
      : shift(t0, train.months + test.months * k, train.days + test.days * k);
  const testStart = (k: number): number =>
    test.bars > 0
      ? (train.bars > 0 ? train.bars : firstAtOrAfter(times, testStartTime(0))) + test.bars * k
      : firstAtOrAfter(times, testStartTime(k));
  for (let k = 0; ; k++) {
    const testFrom = testStart(k);
    if (testFrom >= n) break;
    const testTo = Math.min(testStart(k + 1), n) - 1;
    const trainTo = testFrom - 1;
    let trainFrom = 0;
    if (!spec.anchored)
      trainFrom =
        train.bars > 0
          ? testFrom - train.bars
          : test.bars > 0
            ? firstAtOrAfter(times, shift(times[testFrom]!, -train.months, -train.days))
            : firstAtOrAfter(times, shift(t0, test.months * k, test.days * k));
    if (testTo >= testFrom && trainTo >= trainFrom && trainFrom >= 0)
      windows.push({ trainFrom, trainTo, testFrom, testTo });
  }
  if (windows.length === 0) throw noWindow(spec, n);
  return windows;
}

function noWindow(spec: WalkForwardSpec, n: number): WalkForwardDataError {
  return new WalkForwardDataError(
    `Walk-forward ${describe(spec)} leaves no test bar in ${n} bars: the training span covers ` +
      "the whole data. Shorten the training span or give more data.",
  );
}

function describe(spec: WalkForwardSpec): string {
  const text = (span: Span): string => {
    const [unit, n] = unitAndCount(span);
    return unit === "bars" ? `${n}` : `${n}${unit[0]}`;
  };
  return `train=${text(spec.train)},test=${text(spec.test)}${spec.anchored ? ",anchored" : ""}`;
}
