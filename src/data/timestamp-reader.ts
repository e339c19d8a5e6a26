import type { TimeUnit } from "../config/run-settings.js";
import type { Millis } from "../engine/types.js";
import { quoteCell } from "./data-error.js";
import { type DateFormat, readDate } from "./date-format.js";
import {
  looksDayOrMonthFirst,
  parseTimestamp,
  TIMESTAMP_FORMATS,
  timestampProblem,
  wallClockIn,
} from "./parse-timestamp.js";

/** Unit of epoch timestamps: seconds or milliseconds since 1970-01-01T00:00:00Z. */
export type { TimeUnit };

export interface TimestampOptions {
  /** IANA zone that instants (offset timestamps, epochs) are converted to. */
  tz?: string;
  /** Epoch unit; without it a file of integer timestamps has its unit detected from the digits. */
  timeUnit?: TimeUnit;
  /** Explicit layout for day-first or month-first dates. */
  dateFormat?: DateFormat;
}

// Epochs between 1973 and 2286 have 9–10 digits in seconds and 12–13 in milliseconds, so the digit
// count alone tells the unit; any other count (or a file mixing the two) needs --time-unit.
const SECONDS_DIGITS = [9, 10];
const MILLIS_DIGITS = [12, 13];
const MAX_MILLIS = 8.64e15; // the range of a JavaScript Date

/**
 * Reads the time cells of one file: ISO dates and datetimes, epoch seconds or milliseconds, or
 * dates in an explicit --date-format. Remembers the epoch unit it detected on the first row so a
 * file that mixes units is rejected instead of read half wrong.
 */
export class TimestampReader {
  private unit: TimeUnit | null;
  private unitLine = 0;
  private why = "";
  private fixText = "";

  constructor(private readonly opts: TimestampOptions) {
    this.unit = opts.timeUnit ?? null;
  }

  /** Milliseconds of the cell as a wall clock (UTC unless --tz converts), or NaN; then `problem`
   * and `fix` say why. */
  read(cell: string, line: number): Millis {
    const format = this.opts.dateFormat;
    if (format !== undefined) {
      const t = readDate(format, cell);
      if (typeof t === "number") return t;
      return this.fail(t, `Write every timestamp as ${format.text}, or fix --date-format.`);
    }
    const digits = epochDigits(cell);
    if (digits === 0) {
      if (this.opts.timeUnit !== undefined) {
        return this.fail(
          `--time-unit ${this.opts.timeUnit} expects integer epoch timestamps`,
          "Drop --time-unit for ISO dates, or fix the cell.",
        );
      }
      const t = parseTimestamp(cell, this.opts.tz);
      if (!Number.isNaN(t)) return t;
      if (looksDayOrMonthFirst(cell)) {
        return this.fail(
          timestampProblem(cell),
          "Say which with --date-format DD/MM/YYYY or --date-format MM/DD/YYYY (the separator as in the file, optionally followed by  HH:MM or  HH:MM:SS).",
        );
      }
      return this.fail(
        timestampProblem(cell),
        `Write timestamps as ${TIMESTAMP_FORMATS}, or as epoch seconds or milliseconds.`,
      );
    }
    let unit = this.opts.timeUnit ?? null;
    if (unit === null) {
      const detected = SECONDS_DIGITS.includes(digits)
        ? "s"
        : MILLIS_DIGITS.includes(digits)
          ? "ms"
          : null;
      if (detected === null) {
        return this.fail(
          `an epoch timestamp of ${digits} digits is neither seconds (9–10 digits) nor milliseconds (12–13 digits)`,
          "Say which with --time-unit s or --time-unit ms.",
        );
      }
      if (this.unit === null) {
        this.unit = detected;
        this.unitLine = line;
      } else if (this.unit !== detected) {
        return this.fail(
          `this epoch timestamp looks like ${unitName(detected)} but the one on line ${this.unitLine} looks like ${unitName(this.unit)}`,
          "Say which unit the file uses with --time-unit s or --time-unit ms, or fix the row.",
        );
      }
      unit = detected;
    }
    const instant = Number(cell.trim()) * (unit === "s" ? 1000 : 1);
    if (!(Math.abs(instant) <= MAX_MILLIS)) {
      return this.fail(
        `the epoch timestamp is out of range in ${unitName(unit)}`,
        "Check the cell and --time-unit.",
      );
    }
    return this.opts.tz === undefined ? instant : wallClockIn(this.opts.tz, instant);
  }

  /** The epoch unit given or detected so far (on the row `read` first saw an epoch), or null. */
  epochUnit(): TimeUnit | null {
    return this.unit;
  }

  /** Would `cell` read as a timestamp? Has no effect on unit detection (used to tell a date index
   * from a row number). */
  accepts(cell: string): boolean {
    const probe = new TimestampReader(this.opts);
    return !Number.isNaN(probe.read(cell, 0));
  }

  /** Why the last `read` gave NaN, naming the cell. */
  problem(cell: string): string {
    return `${quoteCell(cell)} is not a valid timestamp: ${this.why}`;
  }

  fix(): string {
    return this.fixText;
  }

  private fail(why: string, fix: string): number {
    this.why = why;
    this.fixText = fix;
    return Number.NaN;
  }
}

/** Digit count of an integer cell (an optional minus, then digits; spaces around ignored), or 0. */
function epochDigits(cell: string): number {
  const s = cell.trim();
  const start = s.charCodeAt(0) === 45 ? 1 : 0;
  if (s.length === start || s.length - start > 16) return 0;
  for (let i = start; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return 0;
  }
  return s.length - start;
}

function unitName(unit: TimeUnit): string {
  return unit === "s" ? "seconds" : "milliseconds";
}
