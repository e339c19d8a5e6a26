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
 * before the next bar falls in another period, and at the final bar. Knowing that the session is
 * over is not a look-ahead: a human trader knows when the day ends, and no price is read.
 */
export function calendarFlagsAt(times: Float64Array, i: number, out: CalendarFlags): CalendarFlags {
  const t = times[i] ?? 0;
  const next = times[i + 1];
  if (next === undefined) {
    out.dayEnd = true;
    out.weekEnd = true;
    out.monthEnd = true;
    return out;
  }
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

/** `YYYY-MM-DD` for daily data, `YYYY-MM-DD HH:MM:SS` when the data is intraday. */
export function timeLabel(t: Millis, intraday: boolean): string {
  if (!intraday) return dayKey(t);
  const secs = Math.floor((t - Math.floor(t / DAY_MS) * DAY_MS) / 1000);
  const h = Math.floor(secs / 3600);
  const m = Math.floor((secs % 3600) / 60);
  return `${dayKey(t)} ${pad2(h)}:${pad2(m)}:${pad2(secs % 60)}`;
}

/** Whether any timestamp carries a time of day (then labels show it). */
export function isIntraday(times: Float64Array): boolean {
  for (let i = 0; i < times.length; i++) if ((times[i] as number) % DAY_MS !== 0) return true;
  return false;
}
