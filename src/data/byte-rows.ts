import type { Millis } from "../engine/types.js";
import { POW10 } from "../util/parse-decimal.js";
import type { ColumnLayout } from "./columns.js";
import { daysFromCivil, daysInMonth, wallClockIn } from "./parse-timestamp.js";
import type { TimestampOptions, TimeUnit } from "./timestamp-reader.js";

/** Where ByteRows puts a bar it has read and checked. */
export interface BarSink {
  append(t: Millis, o: number, h: number, l: number, c: number, v: number, line: number): void;
  /** The epoch unit detected so far (TimestampReader's), or null. */
  epochUnit(): TimeUnit | null;
}

// What each cell of a row is.
const SKIP = 0;
const TIME = 1;
const OPEN = 2;
const HIGH = 3;
const LOW = 4;
const CLOSE = 5;
const VOLUME = 6;

const MAX_MILLIS = 8.64e15; // the range of a JavaScript Date, as TimestampReader checks it
const MS_PER_DAY = 86_400_000;

/**
 * The loader's fast path: reads rows of the common shape (an ISO or epoch timestamp and plain
 * decimals such as `101.25`, nothing quoted, no spaces) straight from the file's bytes into the
 * bar columns, with no string or slice per row or cell (but for a number of 16 digits or more).
 * It only ever accepts: a row it cannot read with certainty (an exponent, a space, a blank line,
 * a bad value, any error) is left to the general path, which reads it from text as before, so
 * every value, warning and error message is the general path's. Accepted values are the general path's exactly: the same arithmetic on the
 * same digits (see parseDecimalIn and parse-timestamp's scanFields).
 */
export class ByteRows {
  private readonly roles: Uint8Array;
  private readonly hasVolume: boolean;
  private readonly tz: string | undefined;
  private readonly timeUnit: TimeUnit | undefined;
  // The values of the row being read, by role (Float64 so -0 survives as it does in the columns).
  private readonly values = new Float64Array(7);
  // Doubles start as NaN, not 0: a field first holding a small integer is stored as one, and
  // its first timestamp would change the object's shape and throw away the optimised code.
  /** The time of the row being read, set by readTime. */
  private t = Number.NaN;
  // The date of the last ISO timestamp read (YYYYMMDD) and its day in milliseconds.
  private lastDate = -1;
  private lastDayMs = Number.NaN;
  /** The number of the last line `read` took. */
  line = 0;

  private constructor(
    layout: ColumnLayout,
    cells: number,
    private readonly sink: BarSink,
    timestamps: TimestampOptions,
    private readonly delimiter: number,
    private readonly breakByte: number,
    private readonly crlf: boolean,
  ) {
    this.roles = new Uint8Array(cells);
    this.roles[layout.time] = TIME;
    this.roles[layout.open] = OPEN;
    this.roles[layout.high] = HIGH;
    this.roles[layout.low] = LOW;
    this.roles[layout.close] = CLOSE;
    if (layout.volume !== null) this.roles[layout.volume] = VOLUME;
    this.hasVolume = layout.volume !== null;
    this.tz = timestamps.tz;
    this.timeUnit = timestamps.timeUnit;
  }

  /**
   * A reader for rows of `cells` cells in `layout`, or null when the file's shape is one the
   * fast path leaves to the general one (a separate time-of-day column, --date-format, a
   * delimiter that is not one byte, or two roles on one column).
   */
  static forLayout(
    layout: ColumnLayout,
    cells: number,
    sink: BarSink,
    timestamps: TimestampOptions,
    delimiter: string,
    newline: "\r\n" | "\n" | "\r",
  ): ByteRows | null {
    if (layout.clock !== null || timestamps.dateFormat !== undefined) return null;
    if (delimiter.length !== 1 || delimiter.charCodeAt(0) > 127) return null;
    const used = [layout.time, layout.open, layout.high, layout.low, layout.close];
    if (layout.volume !== null) used.push(layout.volume);
    if (new Set(used).size !== used.length || used.some((k) => k < 0 || k >= cells)) return null;
    return new ByteRows(
      layout,
      cells,
      sink,
      timestamps,
      delimiter.charCodeAt(0),
      newline === "\r" ? 13 : 10,
      newline === "\r\n",
    );
  }

  /**
   * Reads whole lines of `b` from `pos` (every line up to `end` ends with a line break) for as
   * long as they are of the common shape. Returns where it stopped: `end`, or the start of a line
   * the general path must read. `line` is the number of the line before `pos`; `this.line` is
   * then the number of the last line read.
   */
  read(b: Buffer, pos: number, end: number, line: number): number {
    let p = pos;
    let n = line;
    while (p < end) {
      const next = this.readRow(b, p, end, n + 1);
      if (next < 0) break;
      p = next;
      n++;
    }
    this.line = n;
    return p;
  }

  /** Reads the row at `p` as line `line`; returns the start of the next line, or -1 when the
   * general path must read this one. */
  private readRow(b: Buffer, pos: number, end: number, line: number): number {
    const roles = this.roles;
    const cells = roles.length;
    const values = this.values;
    const delimiter = this.delimiter;
    const breakByte = this.breakByte;
    let p = pos;
    for (let k = 0; k < cells; k++) {
      const role = roles[k] as number;
      if (role === SKIP) {
        while (p < end && b[p] !== delimiter && b[p] !== breakByte) p++;
      } else if (role === TIME) {
        p = this.readTime(b, p);
        if (p < 0) return -1;
      } else {
        // parseDecimalIn's fast path on bytes: a sign, at most 15 digits and one point.
        const cellStart = p;
        let c = b[p] as number;
        const negative = c === 45;
        if (negative || c === 43) c = b[++p] as number;
        let mantissa = 0;
        let digits = 0;
        for (; c >= 48 && c <= 57; c = b[++p] as number) {
          mantissa = mantissa * 10 + (c - 48);
          digits++;
        }
        let fraction = 0;
        if (c === 46) {
          for (c = b[++p] as number; c >= 48 && c <= 57; c = b[++p] as number) {
            mantissa = mantissa * 10 + (c - 48);
            fraction++;
          }
          digits += fraction;
        }
        if (digits === 0) return -1;
        if (digits <= 15) {
          const value = mantissa / (POW10[fraction] as number);
          values[role] = negative ? -value : value;
        } else {
          // Longer mantissas (pandas writes 17 significant digits) are not exact doubles: the
          // general path gives such a cell, checked to be decimal notation, to Number().
          const value = Number(b.toString("latin1", cellStart, p));
          if (!Number.isFinite(value)) return -1;
          values[role] = value;
        }
      }
      // The cell must end here: at the delimiter, or at the line's end after the last cell.
      const c = b[p] as number;
      if (k < cells - 1) {
        if (c !== delimiter) return -1;
        p++;
      } else if (c === breakByte) {
        p++;
      } else if (this.crlf && c === 13 && b[p + 1] === 10) {
        p += 2;
      } else {
        return -1;
      }
    }
    const o = values[OPEN] as number;
    const h = values[HIGH] as number;
    const l = values[LOW] as number;
    const c = values[CLOSE] as number;
    const v = this.hasVolume ? (values[VOLUME] as number) : 0;
    // The general path's checks; a row failing any is left to it for the error message.
    if (!(o > 0 && h > 0 && l > 0 && c > 0) || v < 0) return -1;
    if (h < Math.max(o, c) || l > Math.min(o, c)) return -1;
    this.sink.append(this.t, o, h, l, c, v, line);
    return p;
  }

  /**
   * Reads the timestamp at `p` into `this.t`; returns the position after it, or -1 when the
   * cell is not certainly one of the shapes below (the general path then reads the row).
   * ISO: `YYYY-MM-DD` or `YYYY/MM/DD`, optionally `[ T]HH:MM[:SS[.f{1,3}]]` then `Z` or
   * `±HH:MM`; epoch: an optional minus and up to 15 digits. The same fields, checks and
   * arithmetic as parse-timestamp's scanFields and TimestampReader.read.
   */
  private readTime(b: Buffer, start: number): number {
    let p = start;
    const negative = b[p] === 45;
    if (negative) p++;
    let digits = 0;
    let epoch = 0;
    for (let c = b[p] as number; c >= 48 && c <= 57; c = b[++p] as number) {
      epoch = epoch * 10 + (c - 48);
      digits++;
    }
    const next = b[p] as number;
    if (next === this.delimiter || next === this.breakByte || next === 13) {
      return this.readEpoch(negative, digits, epoch) ? p : -1;
    }
    if (negative || digits !== 4 || this.timeUnit !== undefined) return -1;
    const sep = next;
    if (sep !== 45 && sep !== 47) return -1;
    const year = epoch;
    const month = twoDigits(b, p + 1);
    if (month < 0 || b[p + 3] !== sep) return -1;
    const day = twoDigits(b, p + 4);
    if (day < 0) return -1;
    p += 6;
    let hour = 0;
    let minute = 0;
    let second = 0;
    let milli = 0;
    let offsetMinutes = 0;
    let hasOffset = false;
    const t = b[p];
    if (t === 32 || t === 84) {
      hour = twoDigits(b, p + 1);
      minute = twoDigits(b, p + 4);
      if (hour < 0 || minute < 0 || b[p + 3] !== 58) return -1;
      p += 6;
      if (b[p] === 58) {
        second = twoDigits(b, p + 1);
        if (second < 0) return -1;
        p += 3;
        if (b[p] === 46) {
          p++;
          let scale = 100;
          let d = digitAt(b, p);
          if (d < 0) return -1;
          for (; d >= 0; d = digitAt(b, ++p)) {
            // More than milliseconds is left to the general path, whose sum of d * 10^-k is
            // floating point; up to three digits both are exact integers.
            if (scale < 1) return -1;
            milli += d * scale;
            scale /= 10;
          }
        }
      }
      const c = b[p];
      if (c === 90 || c === 122) {
        hasOffset = true; // 'Z' or 'z'
        p++;
      } else if (c === 43 || c === 45) {
        const oh = twoDigits(b, p + 1);
        const om = twoDigits(b, p + 4);
        if (oh < 0 || om < 0 || b[p + 3] !== 58 || oh > 23 || om > 59) return -1;
        hasOffset = true;
        offsetMinutes = (c === 45 ? -1 : 1) * (oh * 60 + om);
        p += 6;
      }
    }
    if (hour > 23 || minute > 59 || second > 59) return -1;
    // Consecutive bars mostly share their date, so its day number is kept.
    const date = (year * 100 + month) * 100 + day;
    if (date !== this.lastDate) {
      if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return -1;
      this.lastDate = date;
      this.lastDayMs = daysFromCivil(year, month, day) * MS_PER_DAY;
    }
    const wall = this.lastDayMs + ((hour * 60 + minute) * 60 + second) * 1000 + milli;
    const tz = this.tz;
    this.t = tz === undefined || !hasOffset ? wall : wallClockIn(tz, wall - offsetMinutes * 60_000);
    return p;
  }

  /** An epoch cell of `digits` digits: sets `this.t` when its unit is certain (given, or the
   * unit already detected on an earlier row) and it is in range. */
  private readEpoch(negative: boolean, digits: number, value: number): boolean {
    if (digits === 0 || digits > 15) return false;
    let unit = this.timeUnit;
    if (unit === undefined) {
      const detected =
        digits === 9 || digits === 10 ? "s" : digits === 12 || digits === 13 ? "ms" : null;
      if (detected === null || this.sink.epochUnit() !== detected) return false;
      unit = detected;
    }
    const instant = (negative ? -value : value) * (unit === "s" ? 1000 : 1);
    if (!(Math.abs(instant) <= MAX_MILLIS)) return false;
    this.t = this.tz === undefined ? instant : wallClockIn(this.tz, instant);
    return true;
  }
}

function digitAt(b: Uint8Array, i: number): number {
  // Past the end is undefined, and undefined - 48 is NaN, which fails both comparisons.
  const c = (b[i] as number) - 48;
  return c >= 0 && c <= 9 ? c : -1;
}

function twoDigits(b: Uint8Array, i: number): number {
  const x = digitAt(b, i);
  const y = digitAt(b, i + 1);
  return x < 0 || y < 0 ? -1 : x * 10 + y;
}
