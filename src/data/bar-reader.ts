import { DECIMAL_NOTATION, parseDecimalIn } from "../util/parse-decimal.js";
import { sharedFloat64 } from "../util/shared-float64.js";
import { type BarSink, ByteRows } from "./byte-rows.js";
import type { BarColumns } from "./chronological-order.js";
import { type ColumnLayout, type ColumnMapping, resolveColumns } from "./columns.js";
import { DataError, quoteCell } from "./data-error.js";
import { type TimestampOptions, TimestampReader, type TimeUnit } from "./timestamp-reader.js";

const INITIAL_CAPACITY = 1024;

/**
 * Turns CSV rows, fed one at a time in file order, into validated bar columns. A row is given as
 * cell ranges into a larger text (a piece of the file), so the common case makes no per-row
 * arrays and no per-cell strings: numbers are read in place.
 */
export class BarReader implements BarSink {
  private header: readonly string[] | null = null;
  private headerLine = 0;
  private layout: ColumnLayout | null = null;
  private n = 0;
  private bars: BarColumns;
  private readonly time: TimestampReader;
  // The row being pushed: its text and cell ranges (set by pushRange, read by the helpers).
  private text = "";
  private starts: Int32Array = new Int32Array(0);
  private ends: Int32Array = new Int32Array(0);

  /** `expectedRows` sizes the columns up front (the line count is a cheap upper bound). */
  constructor(
    private readonly file: string,
    private readonly timestamps: TimestampOptions,
    private readonly mapping: ColumnMapping = {},
    expectedRows = INITIAL_CAPACITY,
  ) {
    this.time = new TimestampReader(timestamps);
    this.bars = allocate(Math.max(1, expectedRows));
  }

  /** Takes the next row as an array of cells (the quoted-CSV path); `line` is 1-based. */
  push(row: readonly string[], line: number): void {
    let text = "";
    const starts = new Int32Array(row.length);
    const ends = new Int32Array(row.length);
    for (let k = 0; k < row.length; k++) {
      starts[k] = text.length;
      text += row[k] ?? "";
      ends[k] = text.length;
    }
    this.pushRange(text, starts, ends, row.length, line);
  }

  /** Takes the next row as `count` cells `text.slice(starts[k], ends[k])`; `line` is 1-based. */
  pushRange(text: string, starts: Int32Array, ends: Int32Array, count: number, line: number): void {
    this.text = text;
    this.starts = starts;
    this.ends = ends;
    if (count === 1 && isBlankRange(text, starts[0] ?? 0, ends[0] ?? 0)) return;
    const header = this.header;
    if (header === null) {
      this.header = this.cells(count);
      this.headerLine = line;
      return;
    }
    let layout = this.layout;
    if (layout === null) {
      // The first data row is needed to tell a pandas date index from a plain row number.
      layout = resolveColumns(
        this.file,
        header,
        this.cells(count),
        (cell) => this.time.accepts(cell),
        this.mapping,
      );
      this.layout = layout;
    }
    if (count !== header.length) {
      throw new DataError({
        file: this.file,
        line,
        column: null,
        problem: `the row has ${count} field${count === 1 ? "" : "s"} but the header has ${header.length}`,
        fix: "Give every row one value per header column (check for stray or missing commas).",
      });
    }
    const dateCell = this.cell(layout.time);
    const timeCell = layout.clock === null ? dateCell : `${dateCell} ${this.cell(layout.clock)}`;
    const t = this.time.read(timeCell, line);
    if (Number.isNaN(t)) {
      throw new DataError({
        file: this.file,
        line,
        column: header[layout.time] ?? "",
        problem: this.time.problem(timeCell),
        fix: this.time.fix(),
      });
    }
    const o = this.number(layout.open, line);
    const h = this.number(layout.high, line);
    const l = this.number(layout.low, line);
    const c = this.number(layout.close, line);
    const v = layout.volume === null ? 0 : this.number(layout.volume, line);
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

    this.append(t, o, h, l, c, v, line);
  }

  /** Stores a bar that passed every check above (ByteRows makes the same checks). */
  append(t: number, o: number, h: number, l: number, c: number, v: number, line: number): void {
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

  /** Whether the header and the first data row have fixed the columns. */
  hasLayout(): boolean {
    return this.layout !== null;
  }

  epochUnit(): TimeUnit | null {
    return this.time.epochUnit();
  }

  /** The byte-level reader for the rows after the first data row, once the header and that row
   * have fixed the layout; null before, or when the file's shape is not one it reads. */
  byteRows(delimiter: string, newline: "\r\n" | "\n" | "\r"): ByteRows | null {
    const layout = this.layout;
    const header = this.header;
    if (layout === null || header === null) return null;
    return ByteRows.forLayout(layout, header.length, this, this.timestamps, delimiter, newline);
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

  private cell(k: number): string {
    return this.text.slice(this.starts[k] ?? 0, this.ends[k] ?? 0);
  }

  private cells(count: number): string[] {
    return Array.from({ length: count }, (_, k) => this.cell(k));
  }

  private number(column: number, line: number): number {
    const start = this.starts[column] ?? 0;
    const end = this.ends[column] ?? 0;
    const value = parseDecimalIn(this.text, start, end);
    // Number("  ") is 0, so a zero needs a second look.
    if (Number.isFinite(value) && (value !== 0 || !isBlankRange(this.text, start, end))) {
      return value;
    }
    const cell = this.cell(column);
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

function isBlankRange(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (text.charCodeAt(i) > 32) return false;
  return true;
}

function allocate(capacity: number): BarColumns {
  return {
    // Shared memory: a run's equity.csv worker thread reads the times in place, with no copy.
    time: sharedFloat64(capacity),
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
