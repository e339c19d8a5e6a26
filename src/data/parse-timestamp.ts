import type { Millis } from "../engine/types.js";

// Hand-parsed rather than `new Date(string)` or a regex: loading a million-row file spends most of
// its time here, and Date's string parsing also reads date-only strings as UTC but datetimes as
// local time, which is exactly the ambiguity the "wall clock as written" convention avoids.

const MS_PER_MINUTE = 60_000;
const MS_PER_DAY = 86_400_000;

const OK = 0;
const BAD_FORMAT = 1;
const BAD_MONTH = 2;
const BAD_DAY = 3;
const BAD_HOUR = 4;
const BAD_MINUTE = 5;
const BAD_SECOND = 6;
const BAD_OFFSET = 7;

// Scratch fields written by scanFields: module-level so the hot path allocates nothing per row.
let year = 0;
let month = 0;
let day = 0;
let hour = 0;
let minute = 0;
let second = 0;
let milli = 0;
let hasOffset = false;
let offsetMinutes = 0;

function digitAt(s: string, i: number): number {
  // charCodeAt past the end is NaN, and NaN fails both comparisons, so no bounds check is needed.
  const c = s.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : -1;
}

function twoDigitsAt(s: string, i: number): number {
  const a = digitAt(s, i);
  const b = digitAt(s, i + 1);
  return a < 0 || b < 0 ? -1 : a * 10 + b;
}

function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

export function daysInMonth(y: number, m: number): number {
  if (m === 2) return isLeapYear(y) ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil); unlike
 * Date.UTC it does not remap years 0–99 to the 1900s. */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** Reads the fields of `s` into the scratch variables; returns OK or the first problem found. */
function scanFields(text: string): number {
  const first = text.charCodeAt(0);
  const last = text.charCodeAt(text.length - 1);
  const s = first <= 32 || last <= 32 ? text.trim() : text;
  const len = s.length;
  if (len < 10) return BAD_FORMAT;
  const y0 = digitAt(s, 0);
  const y1 = digitAt(s, 1);
  const y2 = digitAt(s, 2);
  const y3 = digitAt(s, 3);
  if (y0 < 0 || y1 < 0 || y2 < 0 || y3 < 0) return BAD_FORMAT;
  const sep = s.charCodeAt(4);
  if ((sep !== 45 && sep !== 47) || s.charCodeAt(7) !== sep) return BAD_FORMAT; // '-' or '/'
  year = y0 * 1000 + y1 * 100 + y2 * 10 + y3;
  month = twoDigitsAt(s, 5);
  day = twoDigitsAt(s, 8);
  if (month < 0 || day < 0) return BAD_FORMAT;
  hour = 0;
  minute = 0;
  second = 0;
  milli = 0;
  hasOffset = false;
  offsetMinutes = 0;
  if (len > 10) {
    const t = s.charCodeAt(10);
    if (t !== 32 && t !== 84) return BAD_FORMAT; // ' ' or 'T'
    hour = twoDigitsAt(s, 11);
    minute = twoDigitsAt(s, 14);
    if (hour < 0 || minute < 0 || s.charCodeAt(13) !== 58) return BAD_FORMAT;
    let i = 16;
    if (s.charCodeAt(i) === 58) {
      second = twoDigitsAt(s, i + 1);
      if (second < 0) return BAD_FORMAT;
      i += 3;
      if (s.charCodeAt(i) === 46) {
        i++;
        const start = i;
        let scale = 100;
        for (let d = digitAt(s, i); d >= 0; d = digitAt(s, ++i)) {
          // Digits beyond milliseconds are truncated: bars are never finer than that.
          milli += d * scale;
          scale /= 10;
        }
        milli = Math.floor(milli);
        if (i === start) return BAD_FORMAT;
      }
    }
    if (i < len) {
      const c = s.charCodeAt(i);
      if (c === 90 || c === 122) {
        hasOffset = true; // 'Z' or 'z'
        i++;
      } else if (c === 43 || c === 45) {
        const oh = twoDigitsAt(s, i + 1);
        if (oh < 0) return BAD_FORMAT;
        let om = 0;
        if (s.charCodeAt(i + 3) === 58) {
          om = twoDigitsAt(s, i + 4);
          i += 6;
        } else if (i + 3 < len) {
          om = twoDigitsAt(s, i + 3);
          i += 5;
        } else {
          i += 3;
        }
        if (om < 0) return BAD_FORMAT;
        if (oh > 23 || om > 59) return BAD_OFFSET;
        hasOffset = true;
        offsetMinutes = (c === 45 ? -1 : 1) * (oh * 60 + om);
      }
    }
    if (i !== len) return BAD_FORMAT;
  }
  if (month < 1 || month > 12) return BAD_MONTH;
  if (day < 1 || day > daysInMonth(year, month)) return BAD_DAY;
  if (hour > 23) return BAD_HOUR;
  if (minute > 59) return BAD_MINUTE;
  if (second > 59) return BAD_SECOND;
  return OK;
}

function wallClockMillis(): Millis {
  return (
    daysFromCivil(year, month, day) * MS_PER_DAY +
    ((hour * 60 + minute) * 60 + second) * 1000 +
    milli
  );
}

/**
 * Parses `YYYY-MM-DD`, `YYYY/MM/DD`, `YYYY-MM-DD HH:MM[:SS]` and `YYYY-MM-DDTHH:MM:SS[.fff]`, each
 * optionally followed by `Z` or `±HH:MM`, into milliseconds of the wall-clock time as written, read
 * as if it were UTC. The offset suffix is ignored unless `tz` (an IANA zone) is given: a timestamp
 * with an offset is then converted to that zone's wall clock, one without is taken as already in
 * it. Returns NaN when `text` is not a valid timestamp (see `timestampProblem` for why).
 * Throws a RangeError for an unknown `tz`; check it first with `isValidTimeZone`.
 */
export function parseTimestamp(text: string, tz?: string): Millis {
  if (scanFields(text) !== OK) return Number.NaN;
  const wall = wallClockMillis();
  if (tz === undefined || !hasOffset) return wall;
  const instant = wall - offsetMinutes * MS_PER_MINUTE;
  return instant + zoneClock(tz).offsetAt(instant);
}

/** Why `text` is not a timestamp, for error messages; "" when it is one. Slow path only. */
export function timestampProblem(text: string): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  switch (scanFields(text)) {
    case OK:
      return "";
    case BAD_MONTH:
      return `month ${pad(month)} is not between 01 and 12`;
    case BAD_DAY:
      return `day ${pad(day)} does not exist in ${year}-${pad(month)}`;
    case BAD_HOUR:
      return `hour ${pad(hour)} is not between 00 and 23`;
    case BAD_MINUTE:
      return `minute ${pad(minute)} is not between 00 and 59`;
    case BAD_SECOND:
      return `second ${pad(second)} is not between 00 and 59`;
    case BAD_OFFSET:
      return "the UTC offset is out of range";
    default:
      return looksDayOrMonthFirst(text)
        ? "day-first and month-first dates (such as 03/04/2020) cannot be told apart"
        : "it is not in a recognised date format";
  }
}

/** The accepted formats, for the "how to fix" half of error messages. */
export const TIMESTAMP_FORMATS =
  "YYYY-MM-DD, YYYY/MM/DD, YYYY-MM-DD HH:MM[:SS] or YYYY-MM-DDTHH:MM:SS[.fff], optionally followed by Z or ±HH:MM";

/** `D/M/YYYY`-like dates (any of / . - between the parts), the layout that needs --date-format. */
export function looksDayOrMonthFirst(text: string): boolean {
  return /^\s*\d{1,2}([/.-])\d{1,2}\1\d{4}(?:[ T]|\s*$)/.test(text);
}

/** The wall clock in `tz` at a UTC instant (how epoch timestamps are shown with --tz). */
export function wallClockIn(tz: string, instant: Millis): Millis {
  return instant + zoneClock(tz).offsetAt(instant);
}

export function isValidTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

// UTC offsets only change at zone transitions, so offsets are cached per 15-minute bucket of
// instants; a bucket whose two ends disagree contains a transition and is resolved per instant.
const BUCKET_MS = 15 * MS_PER_MINUTE;
const VARIES = Number.NaN;

interface ZoneClock {
  offsetAt(instant: Millis): number;
}

const zoneClocks = new Map<string, ZoneClock>();

function zoneClock(tz: string): ZoneClock {
  let clock = zoneClocks.get(tz);
  if (clock === undefined) {
    clock = makeZoneClock(tz);
    zoneClocks.set(tz, clock);
  }
  return clock;
}

function makeZoneClock(tz: string): ZoneClock {
  const format = new Intl.DateTimeFormat("en-US", {
    timeZone: tz,
    hourCycle: "h23",
    era: "short",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    second: "numeric",
  });
  const exactOffset = (instant: Millis): number => {
    let y = 0;
    let mo = 1;
    let d = 1;
    let h = 0;
    let mi = 0;
    let se = 0;
    let bc = false;
    for (const part of format.formatToParts(instant)) {
      const v = Number(part.value);
      switch (part.type) {
        case "era":
          bc = part.value.startsWith("B");
          break;
        case "year":
          y = v;
          break;
        case "month":
          mo = v;
          break;
        case "day":
          d = v;
          break;
        case "hour":
          h = v;
          break;
        case "minute":
          mi = v;
          break;
        case "second":
          se = v;
          break;
      }
    }
    const wallYear = bc ? 1 - y : y;
    const wall = daysFromCivil(wallYear, mo, d) * MS_PER_DAY + ((h * 60 + mi) * 60 + se) * 1000;
    const wholeSecond = instant - (((instant % 1000) + 1000) % 1000);
    return wall - wholeSecond;
  };
  const buckets = new Map<number, number>();
  return {
    offsetAt(instant) {
      const bucket = Math.floor(instant / BUCKET_MS);
      let offset = buckets.get(bucket);
      if (offset === undefined) {
        const start = exactOffset(bucket * BUCKET_MS);
        const end = exactOffset((bucket + 1) * BUCKET_MS - 1000);
        offset = start === end ? start : VARIES;
        buckets.set(bucket, offset);
      }
      return Number.isNaN(offset) ? exactOffset(instant) : offset;
    },
  };
}
