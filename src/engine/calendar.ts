import type { Millis } from "./types.js";

// Boundaries are read from the timestamps as written (stored as if UTC), so the UTC getters give
// the data's own calendar without a time-zone database.

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));
const DAY_MS = 86_400_000;

/** Year, month (1-12) and day of a day number (days since 1970-01-01), without allocating a Date:
 * Howard Hinnant's civil-from-days algorithm. Output files format a million timestamps with it. */
export function civilFromDays(days: number): [year: number, month: number, day: number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day];
}

let cachedDay = Number.NaN;
let cachedDayKey = "";

/** `YYYY-MM-DD` of a timestamp. */
export function dayKey(t: Millis): string {
  const days = Math.floor(t / DAY_MS);
  if (days === cachedDay) return cachedDayKey;
  const [y, m, d] = civilFromDays(days);
  cachedDay = days;
  cachedDayKey = `${y < 1000 ? String(y).padStart(4, "0") : y}-${pad2(m)}-${pad2(d)}`;
  return cachedDayKey;
}

/** `YYYY-MM` of a timestamp. */
export function monthKey(t: Millis): string {
  const d = new Date(t);
  return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}`;
}

/** ISO-8601 week, `YYYY-Www` (weeks start on Monday; week 1 holds the year's first Thursday). */
export function isoWeekKey(t: Millis): string {
  const d = new Date(t);
  const day = d.getUTCDay() === 0 ? 7 : d.getUTCDay();
  // The Thursday of this week decides the ISO year.
  const thursday = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 4 - day);
  const year = new Date(thursday).getUTCFullYear();
  const week = Math.floor((thursday - Date.UTC(year, 0, 1)) / 86_400_000 / 7) + 1;
  return `${year}-W${pad2(week)}`;
}

/** `HH:MM` of a timestamp. */
export function clockKey(t: Millis): string {
  const d = new Date(t);
  return `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`;
}

/** Integer day number: cheap to compare on the hot path. */
export function dayNumber(t: Millis): number {
  return Math.floor(t / DAY_MS);
}

export interface CalendarFlags {
  dayEnd: boolean;
  weekEnd: boolean;
  monthEnd: boolean;
}

/**
 * Whether bar `i` of a timeline closes a day, an ISO week or a month. A period ends at the last bar
 * before the next bar falls in another period. Knowing that the session is over is not a
 * look-ahead: a human trader knows when the day ends, and no price is read. The final bar has no
 * next bar: see lastBarFlags.
 */
export function calendarFlagsAt(times: Float64Array, i: number, out: CalendarFlags): CalendarFlags {
  const t = times[i] ?? 0;
  const next = times[i + 1];
  if (next === undefined) return lastBarFlags(times, i, out);
  const dayNow = dayNumber(t);
  const dayNext = dayNumber(next);
  out.dayEnd = dayNow !== dayNext;
  if (!out.dayEnd) {
    out.weekEnd = false;
    out.monthEnd = false;
    return out;
  }
  // 1970-01-01 was a Thursday, so (day + 3) / 7 counts Monday-based weeks.
  out.weekEnd = Math.floor((dayNow + 3) / 7) !== Math.floor((dayNext + 3) / 7);
  const a = new Date(t);
  const b = new Date(next);
  out.monthEnd = a.getUTCFullYear() !== b.getUTCFullYear() || a.getUTCMonth() !== b.getUTCMonth();
  return out;
}

/** Weekday of a day number, 0 = Monday … 6 = Sunday (1970-01-01 was a Thursday). */
const weekdayOf = (day: number): number => (((day + 3) % 7) + 7) % 7;
const MONDAY_TO_FRIDAY = 0b0011111;

/**
 * The final bar of the data (the window's end: later bars are never loaded) ends its day, and ends
 * its ISO week or month only if the calendar says so, judged by the data's own pattern:
 * - trading days are Monday to Friday, plus Saturday and Sunday if the data has bars on them
 *   (crypto trades every day);
 * - the bar ends its week if no trading day is left in its ISO week after it (a Friday for stock
 *   data, a Sunday for crypto), and its month if no trading day is left in its month (holidays are
 *   not known: Thursday the 30th is not a month end when Friday the 31st could trade);
 * - bars a week or more apart (weekly data) end a week at every bar, the last included; bars 28
 *   days or more apart (monthly data) end a month and a week at every bar.
 * One pass over the timeline, run once per run.
 */
function lastBarFlags(times: Float64Array, i: number, out: CalendarFlags): CalendarFlags {
  let seen = 0;
  let minGap = Number.POSITIVE_INFINITY;
  let prevDay = Number.NaN;
  for (let k = 0; k <= i; k++) {
    const day = dayNumber(times[k] as number);
    if (day === prevDay) continue;
    seen |= 1 << weekdayOf(day);
    if (day - prevDay < minGap) minGap = day - prevDay;
    prevDay = day;
  }
  if (!Number.isFinite(minGap)) minGap = 1; // a single day of data: read it as daily
  const trading = MONDAY_TO_FRIDAY | seen;
  const day = dayNumber(times[i] ?? 0);
  const tradesBetween = (from: number, to: number): boolean => {
    for (let d = from; d <= to; d++) if (trading & (1 << weekdayOf(d))) return true;
    return false;
  };
  const [y, m] = civilFromDays(day);
  const lastOfMonth = Date.UTC(y, m, 0) / DAY_MS; // day 0 of the next month (m is 1-based)
  out.dayEnd = true;
  out.weekEnd = minGap >= 7 || !tradesBetween(day + 1, day + 6 - weekdayOf(day));
  out.monthEnd = minGap >= 28 || !tradesBetween(day + 1, lastOfMonth);
  return out;
}

/** `00`…`59`: a clock's two digits from a table, not a new string per label. */
const CLOCK = Array.from({ length: 60 }, (_, n) => pad2(n));
const clock2 = (n: number): string => CLOCK[n] ?? pad2(n);

/** `YYYY-MM-DD` for daily data, `YYYY-MM-DD HH:MM:SS` when the data is intraday. */
export function timeLabel(t: Millis, intraday: boolean): string {
  if (!intraday) return dayKey(t);
  const secs = Math.floor((t - Math.floor(t / DAY_MS) * DAY_MS) / 1000);
  const h = Math.floor(secs / 3600);
  const m = Math.floor((secs % 3600) / 60);
  return `${dayKey(t)} ${clock2(h)}:${clock2(m)}:${clock2(secs % 60)}`;
}

/**
 * `timeLabel` for many timestamps in time order (a million-row CSV): the day's key is formatted
 * once per day, the clock from a table. Same text as `timeLabel`.
 */
export function timeLabeler(intraday: boolean): (t: Millis) => string {
  let day = Number.NaN;
  let dayText = "";
  let dayPrefix = "";
  return (t) => {
    const d = Math.floor(t / DAY_MS);
    if (d !== day) {
      day = d;
      dayText = dayKey(t);
      dayPrefix = `${dayText} `;
    }
    if (!intraday) return dayText;
    const secs = Math.floor((t - d * DAY_MS) / 1000);
    const m = Math.floor((secs % 3600) / 60);
    return `${dayPrefix}${CLOCK[Math.floor(secs / 3600)]}:${CLOCK[m]}:${CLOCK[secs % 60]}`;
  };
}

/** Whether any timestamp carries a time of day (then labels show it). A timeline is read once
 * (a sweep asks again for each of its combinations); its times never change after the load. */
export function isIntraday(times: Float64Array): boolean {
  const known = intradayOf.get(times);
  if (known !== undefined) return known;
  let intraday = false;
  for (let i = 0; i < times.length && !intraday; i++)
    if ((times[i] as number) % DAY_MS !== 0) intraday = true;
  intradayOf.set(times, intraday);
  return intraday;
}

const intradayOf = new WeakMap<Float64Array, boolean>();
