import type { BarColumns } from "./chronological-order.js";
import { type ColumnLayout, resolveColumns } from "./columns.js";
import { DataError, quoteCell } from "./data-error.js";
import { DECIMAL_NOTATION, parseDecimal } from "./parse-decimal.js";
import { parseTimestamp, TIMESTAMP_FORMATS, timestampProblem } from "./parse-timestamp.js";

const INITIAL_CAPACITY = 1024;

/**
 * Turns CSV rows, fed one at a time in file order, into validated bar columns. Rows are consumed as
 * they are parsed so that a large file never holds a million row arrays at once (that garbage, not
 * the parsing, dominated load time).
 */
export class BarReader {
  private header: readonly string[] | null = null;
  private headerLine = 0;
  private layout: ColumnLayout | null = null;
  private n = 0;
  private bars: BarColumns;

  /** `expectedRows` sizes the columns up front (the line count is a cheap upper bound). */
  constructor(
    private readonly file: string,
    private readonly tz: string | undefined,
    expectedRows = INITIAL_CAPACITY,
  ) {
    this.bars = allocate(Math.max(1, expectedRows));
  }

  /** Takes the next row of the file; `line` is its 1-based line number. */
  push(row: readonly string[], line: number): void {
    if (isBlank(row)) return;
    const header = this.header;
    if (header === null) {
      this.header = row;
      this.headerLine = line;
      return;
    }
    // The first data row is needed to tell a pandas date index from a plain row number.
    const layout = this.layout ?? resolveColumns(this.file, header, row);
    this.layout = layout;
    if (row.length !== header.length) {
      throw new DataError({
        file: this.file,
        line,
        column: null,
        problem: `the row has ${row.length} field${row.length === 1 ? "" : "s"} but the header has ${header.length}`,
        fix: "Give every row one value per header column (check for stray or missing commas).",
      });
    }
    const dateCell = row[layout.time] ?? "";
    const timeCell = layout.clock === null ? dateCell : `${dateCell} ${row[layout.clock] ?? ""}`;
    const t = parseTimestamp(timeCell, this.tz);
    if (Number.isNaN(t)) {
      throw new DataError({
        file: this.file,
        line,
        column: header[layout.time] ?? "",
        problem: `${quoteCell(timeCell)} is not a valid timestamp: ${timestampProblem(timeCell)}`,
        fix: `Write timestamps as ${TIMESTAMP_FORMATS}.`,
      });
    }
    const o = this.number(row, layout.open, line);
    const h = this.number(row, layout.high, line);
    const l = this.number(row, layout.low, line);
    const c = this.number(row, layout.close, line);
    const v = layout.volume === null ? 0 : this.number(row, layout.volume, line);
    if (!(o > 0)) this.fail(layout.open, line, `open ${o} is not positive`, POSITIVE_FIX);
    if (!(h > 0)) this.fail(layout.high, line, `high ${h} is not positive`, POSITIVE_FIX);
    if (!(l > 0)) this.fail(layout.low, line, `low ${l} is not positive`, POSITIVE_FIX);
    if (!(c > 0)) this.fail(layout.close, line, `close ${c} is not positive`, POSITIVE_FIX);
    if (v < 0 && layout.volume !== null) {
      this.fail(layout.volume, line, `volume ${v} is negative`, "Volume must be zero or more.");
    }
    // Together these also reject high < low.
    if (h < Math.max(o, c)) {
      this.fail(layout.high, line, `high ${h} is below max(open ${o}, close ${c})`, RANGE_FIX);
    }
    if (l > Math.min(o, c)) {
      this.fail(layout.low, line, `low ${l} is above min(open ${o}, close ${c})`, RANGE_FIX);
    }

    if (this.n === this.bars.time.length)
      this.bars = grow(this.bars, Math.max(INITIAL_CAPACITY, this.n * 2));
    const b = this.bars;
    const i = this.n++;
    b.time[i] = t;
    b.open[i] = o;
    b.high[i] = h;
    b.low[i] = l;
    b.close[i] = c;
    b.volume[i] = v;
    b.line[i] = line;
  }

  /** The bars in file order, trimmed to length. Throws when the file held no header or no rows. */
  finish(): { bars: BarColumns; header: readonly string[]; layout: ColumnLayout } {
    if (this.header === null) {
      throw new DataError({
        file: this.file,
        line: null,
        column: null,
        problem: "the file is empty",
        fix: "Export the bars with a header line such as Date,Open,High,Low,Close,Volume and one row per bar.",
      });
    }
    if (this.n === 0 || this.layout === null) {
      throw new DataError({
        file: this.file,
        line: this.headerLine,
        column: null,
        problem: "the file has a header but no data rows",
        fix: "Add one row per bar below the header.",
      });
    }
    // The columns were sized from the line count, so a view of the first n rows wastes at most a
    // few slots; copying would briefly double the biggest allocation of a load.
    const wasted = this.bars.time.length - this.n;
    const bars = wasted <= 1024 + this.n / 16 ? view(this.bars, this.n) : grow(this.bars, this.n);
    return { bars, header: this.header, layout: this.layout };
  }

  private number(row: readonly string[], column: number, line: number): number {
    const cell = row[column] ?? "";
    const value = parseDecimal(cell);
    // Number("  ") is 0, so a zero needs a second look.
    if (Number.isFinite(value) && (value !== 0 || cell.trim() !== "")) return value;
    const lower = cell.trim().toLowerCase();
    const problem =
      lower === ""
        ? "the cell is empty"
        : lower === "nan"
          ? "NaN is not a price or a volume"
          : Number.isNaN(value)
            ? `${quoteCell(cell)} is not a decimal number`
            : `${quoteCell(cell)} is not a finite number`;
    return this.fail(column, line, problem, NUMBER_FIX);
  }

  private fail(column: number, line: number, problem: string, fix: string): never {
    const name = this.header?.[column] ?? "";
    throw new DataError({ file: this.file, line, column: name, problem, fix });
  }
}

const POSITIVE_FIX = "Prices must be greater than zero; fix or remove the row.";
const RANGE_FIX = "The high must be the bar's highest price and the low its lowest; fix the row.";
const NUMBER_FIX = `Fill in the value in ${DECIMAL_NOTATION}, or remove the row.`;

export function isBlank(row: readonly string[]): boolean {
  return row.length === 1 && (row[0] ?? "").trim() === "";
}

function allocate(capacity: number): BarColumns {
  return {
    time: new Float64Array(capacity),
    open: new Float64Array(capacity),
    high: new Float64Array(capacity),
    low: new Float64Array(capacity),
    close: new Float64Array(capacity),
    volume: new Float64Array(capacity),
    line: new Int32Array(capacity),
  };
}

function view(bars: BarColumns, n: number): BarColumns {
  return {
    time: bars.time.subarray(0, n),
    open: bars.open.subarray(0, n),
    high: bars.high.subarray(0, n),
    low: bars.low.subarray(0, n),
    close: bars.close.subarray(0, n),
    volume: bars.volume.subarray(0, n),
    line: bars.line.subarray(0, n),
  };
}

/** Copies into arrays of exactly `capacity` (larger to grow, `n` to trim). */
function grow(bars: BarColumns, capacity: number): BarColumns {
  const next = allocate(capacity);
  const n = Math.min(capacity, bars.time.length);
  next.time.set(bars.time.subarray(0, n));
  next.open.set(bars.open.subarray(0, n));
  next.high.set(bars.high.subarray(0, n));
  next.low.set(bars.low.subarray(0, n));
  next.close.set(bars.close.subarray(0, n));
  next.volume.set(bars.volume.subarray(0, n));
  next.line.set(bars.line.subarray(0, n));
  return next;
}
