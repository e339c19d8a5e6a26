import type { Millis } from "../engine/types.js";
import { MemoryInputError } from "./memory-errors.js";

// Simulated time is the data's wall clock read as UTC, so every calendar field uses getUTC*.

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

function checked(at: Millis): Date {
  if (!Number.isFinite(at)) {
    throw new MemoryInputError(
      `Memory needs a valid simulated time, got ${String(at)}. Pass the bar's timestamp in ms.`,
    );
  }
  return new Date(at);
}

const pad2 = (n: number): string => String(n).padStart(2, "0");

/** "YYYY-MM-DD" */
export function dayKey(at: Millis): string {
  const d = checked(at);
  return `${String(d.getUTCFullYear()).padStart(4, "0")}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`;
}

/** "HH:MM" */
export function clockKey(at: Millis): string {
  const d = checked(at);
  return `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`;
}

/** "YYYY-MM-DD HH:MM", the form used in attribution lines and playbook lessons. */
export function minuteStamp(at: Millis): string {
  return `${dayKey(at)} ${clockKey(at)}`;
}

/** "YYYYMMDDTHHMM", sortable and safe in file names (backups). */
export function compactStamp(at: Millis): string {
  return minuteStamp(at).replaceAll("-", "").replace(" ", "T").replace(":", "");
}

/** The time of a "YYYYMMDDTHHMM" stamp (compactStamp), or null. */
export function parseCompactStamp(stamp: string): Millis | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})$/.exec(stamp);
  return m === null ? null : parseMinuteStamp(`${m[1]}-${m[2]}-${m[3]} ${m[4]}:${m[5]}`);
}

/** Midnight of a "YYYY-MM-DD" key, or null when it is not a real date. */
export function parseDayKey(key: string): Millis | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(key);
  if (m === null) return null;
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return dayKey(t) === key ? t : null;
}

/** The time of a "YYYY-MM-DD HH:MM" stamp, or null. */
export function parseMinuteStamp(stamp: string): Millis | null {
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}):(\d{2})$/.exec(stamp);
  if (m === null) return null;
  const day = parseDayKey(m[1]!);
  const h = Number(m[2]);
  const min = Number(m[3]);
  if (day === null || h > 23 || min > 59) return null;
  return day + h * 3_600_000 + min * MINUTE_MS;
}

/** Midnight of the day containing `at`. */
export function startOfDay(at: Millis): Millis {
  return Math.floor(at / DAY_MS) * DAY_MS;
}
