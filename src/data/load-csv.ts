import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import { StringDecoder } from "node:string_decoder";
import type Papa from "papaparse";
import type { SymbolSeries } from "../engine/types.js";
import { BarReader } from "./bar-reader.js";
import type { ByteRows } from "./byte-rows.js";
import { ensureChronological } from "./chronological-order.js";
import type { ColumnMapping } from "./columns.js";
import { DataError, quoteCell } from "./data-error.js";
import { DATE_FORMAT_HELP, parseDateFormat } from "./date-format.js";
import { isValidTimeZone } from "./parse-timestamp.js";
import { symbolFromFile } from "./symbol-name.js";
import type { TimestampOptions, TimeUnit } from "./timestamp-reader.js";

export { parseSymbolArg, symbolFromFile } from "./symbol-name.js";

/** Bytes read at a time: big enough that per-call overhead vanishes, small enough that a piece's
 * strings die young. Memory is the bar columns (52 bytes a row), not the file. */
const CHUNK_BYTES = 1 << 18;

/** More rows of a piece than this left by the byte path, and the rest of the piece is read as
 * text: a file whose rows it mostly leaves then costs what it did before it. */
const MAX_LEFT_ROWS = 64;

/** Longest line accepted. A bar never needs more; without a bound, a file with no line breaks
 * (or the wrong file) would be read into memory whole before anything could be said. */
export const MAX_LINE_BYTES = 1 << 20;

export interface LoadCsvOptions {
  /** Defaults to `symbolFromFile(file)`. */
  symbol?: string;
  /** Reject unsorted rows instead of sorting them with a warning. */
  strict?: boolean;
  /** IANA zone that timestamps carrying a UTC offset, and epoch timestamps, are converted to. */
  tz?: string;
  /** Unit of epoch timestamps; detected from the digit count when not given. */
  timeUnit?: TimeUnit;
  /** Layout of day-first or month-first dates, such as `DD/MM/YYYY` (see date-format.ts). */
  dateFormat?: string;
  /** Header names for some or all of the bar's fields (`--columns`). */
  columns?: ColumnMapping;
  /** Told the bytes of the file parsed so far after each piece read (0 through the first pass,
   * which counts the lines): a long load shows how far it is. */
  onRead?: (bytes: number) => void;
}

export interface LoadedCsv {
  series: SymbolSeries;
  /** Problems that were fixed up rather than rejected, each naming the file. */
  warnings: string[];
  /** Hex SHA-256 of the file's bytes, so a run records exactly which data it saw. */
  sha256: string;
  /** Data rows (bars) loaded. */
  rows: number;
}

/**
 * Loads one OHLCV CSV into columns and validates every row (README.md, Data). Any problem with the
 * file throws a DataError naming the file, line and column.
 */
export function loadCsv(
  file: string,
  opts: LoadCsvOptions = {},
  /** Tests only: false reads every row as text (the general path), to compare the two. */
  bytePath = true,
): LoadedCsv {
  if (opts.tz !== undefined && !isValidTimeZone(opts.tz)) {
    throw new DataError({
      file,
      line: null,
      column: null,
      problem: `unknown time zone ${quoteCell(opts.tz)}`,
      fix: "Use an IANA zone name such as America/New_York, Europe/London or UTC.",
    });
  }
  const timestamps: TimestampOptions = {};
  if (opts.tz !== undefined) timestamps.tz = opts.tz;
  if (opts.timeUnit !== undefined) timestamps.timeUnit = opts.timeUnit;
  if (opts.dateFormat !== undefined) {
    const format = parseDateFormat(opts.dateFormat);
    if (format === null) {
      throw new DataError({
        file,
        line: null,
        column: null,
        problem: `--date-format ${quoteCell(opts.dateFormat)} is not a date format`,
        fix: `Use ${DATE_FORMAT_HELP}.`,
      });
    }
    timestamps.dateFormat = format;
  }

  const fd = openRegularFile(file);
  let read: { reader: BarReader; sha256: string };
  try {
    // Two passes over the file (the second from the page cache): the first bounds line length and
    // counts lines, so the columns are allocated once at their final size.
    const onRead = opts.onRead ?? null;
    const { lines, hasQuotes } = countLines(file, fd, onRead);
    const reader = new BarReader(file, timestamps, opts.columns ?? {}, lines);
    read =
      hasQuotes || !bytePath
        ? readTextRows(file, fd, reader, onRead)
        : readPlainRows(fd, reader, onRead);
  } finally {
    fs.closeSync(fd);
  }
  const { bars, header, layout } = read.reader.finish();

  const { bars: ordered, warning } = ensureChronological(
    file,
    header[layout.time] ?? "",
    bars,
    opts.strict ?? false,
  );
  const warnings: string[] = [];
  if (layout.volume === null) {
    warnings.push(`${file}: no Volume column; volume is 0 on every bar.`);
  }
  if (warning !== null) warnings.push(warning);
  const series: SymbolSeries = {
    symbol: opts.symbol ?? symbolFromFile(file),
    source: file,
    length: ordered.time.length,
    time: ordered.time,
    open: ordered.open,
    high: ordered.high,
    low: ordered.low,
    close: ordered.close,
    volume: ordered.volume,
  };
  return { series, warnings, sha256: read.sha256, rows: series.length };
}

/**
 * Opens `file` for reading and refuses anything but a regular file. The check is on the opened
 * descriptor, so a symlink given on the command line is followed (it is the user's own argument)
 * but one pointing at /dev/zero or a FIFO is refused; O_NONBLOCK keeps the open of a FIFO from
 * waiting for a writer.
 */
function openRegularFile(file: string): number {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unknown error";
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : code;
    throw new DataError({
      file,
      line: null,
      column: null,
      problem: `cannot read the file (${why})`,
      fix: "Check the path; it is resolved from the current directory.",
    });
  }
  const stat = fs.fstatSync(fd);
  if (!stat.isFile()) {
    fs.closeSync(fd);
    const what = stat.isDirectory()
      ? "a directory"
      : stat.isFIFO()
        ? "a FIFO (named pipe)"
        : stat.isCharacterDevice()
          ? "a character device"
          : stat.isSocket()
            ? "a socket"
            : "not a regular file";
    throw new DataError({
      file,
      line: null,
      column: null,
      problem: `it is ${what}; only regular files are read`,
      fix: "Save the bars to a file first and pass that file.",
    });
  }
  return fd;
}

/**
 * Counts line breaks (LF, or CR in a CR-only file), failing on the first line longer than
 * MAX_LINE_BYTES. Returns the line count, an upper bound on the rows, and whether any `"` occurs
 * (a file without quotes never needs its pieces checked for a line break inside a quoted field).
 */
function countLines(
  file: string,
  fd: number,
  onRead: ((bytes: number) => void) | null,
): { lines: number; hasQuotes: boolean } {
  let hasQuotes = false;
  const buf = Buffer.allocUnsafe(CHUNK_BYTES);
  let breakByte = -1;
  let lines = 0;
  let lineStart = 0; // file offset of the current line
  let offset = 0;
  for (;;) {
    const got = fs.readSync(fd, buf, 0, CHUNK_BYTES, offset);
    // No byte is parsed yet, but the load is under way: its clock moves.
    onRead?.(0);
    if (got === 0) break;
    if (!hasQuotes) hasQuotes = buf.subarray(0, got).includes(34);
    if (breakByte < 0) {
      const lf = buf.indexOf(10);
      breakByte = lf >= 0 && lf < got ? 10 : buf.subarray(0, got).includes(13) ? 13 : -1;
    }
    if (breakByte > 0) {
      for (
        let i = buf.indexOf(breakByte, 0);
        i >= 0 && i < got;
        i = buf.indexOf(breakByte, i + 1)
      ) {
        if (offset + i - lineStart > MAX_LINE_BYTES) break;
        lines++;
        lineStart = offset + i + 1;
      }
    }
    offset += got;
    if (offset - lineStart > MAX_LINE_BYTES) {
      throw new DataError({
        file,
        line: lines + 1,
        column: null,
        problem: `the line is longer than ${MAX_LINE_BYTES.toLocaleString("en-US")} bytes (the limit)`,
        fix: "Check that this is a CSV of bars with one bar per line; no bar needs a line this long.",
      });
    }
  }
  return { lines: lines + 1, hasQuotes };
}

/**
 * Reads the rows of a file without quotes into `reader`, in pieces that end at a line break;
 * returns it with the SHA-256 of the bytes read. Rows of the common shape are read straight from
 * the bytes (ByteRows); the header, the first data row (which fixes the layout), any row ByteRows
 * leaves, and pieces with non-ASCII bytes are read as text, as readTextRows reads them.
 */
function readPlainRows(
  fd: number,
  reader: BarReader,
  onRead: ((bytes: number) => void) | null,
): { reader: BarReader; sha256: string } {
  const hash = createHash("sha256");
  const decoder = new StringDecoder("utf8");
  let buf = Buffer.allocUnsafe(CHUNK_BYTES);
  const scanner = new PlainScanner(reader);
  let dialect: Dialect | null = null;
  let breakByte = 10;
  let rows: ByteRows | null = null;
  // Whether ByteRows has been asked for (once the layout is known): after that, a file it does
  // not read is read as text a piece at a time.
  let decided = false;
  let have = 0; // bytes of an unfinished line carried at the front of buf
  let offset = 0;
  let line = 0;
  let first = true;
  const text = (s: string): string => {
    if (first && s.length > 0) {
      first = false;
      if (s.charCodeAt(0) === 0xfeff) return s.slice(1);
    }
    return s;
  };
  for (;;) {
    if (have === buf.length) {
      const bigger = Buffer.allocUnsafe(2 * buf.length);
      buf.copy(bigger, 0, 0, have);
      buf = bigger;
    }
    const got = fs.readSync(fd, buf, have, buf.length - have, offset);
    offset += got;
    onRead?.(offset);
    const atEnd = got === 0;
    if (!atEnd) hash.update(buf.subarray(have, have + got));
    const total = have + got;
    if (dialect === null) {
      const head = buf.subarray(0, total);
      if (!atEnd && !head.includes(10) && !head.includes(13)) {
        have = total;
        continue;
      }
      // Sniffed as the text reading does, after a byte order mark; the delimiters and line
      // breaks it looks for are ASCII, the same bytes in any decoding.
      const bom = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
      dialect = sniffDialect(head.toString("latin1", bom));
      breakByte = dialect.breakChar.charCodeAt(0);
    }
    if (atEnd) {
      // The last line, without a line break after it.
      const tail = text(decoder.write(buf.subarray(0, total)) + decoder.end());
      if (tail.length > 0) line = scanner.scan(tail, dialect, line);
      break;
    }
    const cut = total === 0 ? 0 : buf.lastIndexOf(breakByte, total - 1) + 1;
    const ascii = cut > 0 && isAscii(buf.subarray(0, cut));
    let pos = 0;
    let left = 0; // rows of this piece the byte path left to the text path
    while (pos < cut) {
      if (!decided && reader.hasLayout()) {
        rows = reader.byteRows(dialect.delimiter, dialect.newline);
        decided = true;
      }
      if (ascii && (rows !== null || !decided)) {
        if (rows !== null) {
          pos = rows.read(buf, pos, cut, line);
          line = rows.line;
          if (pos === cut) break;
          if (++left > MAX_LEFT_ROWS) {
            // Many rows of a shape the byte path leaves (spaces after the delimiters, say):
            // the rest of the piece is read as text at once, as it was before the byte path.
            line = scanner.scan(text(buf.toString("latin1", pos, cut)), dialect, line);
            pos = cut;
            continue;
          }
        }
        // One line as text (ASCII bytes are their own latin1 string).
        const next = buf.indexOf(breakByte, pos) + 1;
        line = scanner.scan(text(buf.toString("latin1", pos, next)), dialect, line);
        pos = next;
      } else {
        // A piece ending at a line break leaves the decoder nothing pending, so decoding piece
        // by piece gives the text a whole-file decode would.
        const piece = buf.subarray(pos, cut);
        line = scanner.scan(
          text(ascii ? piece.toString("latin1") : decoder.write(piece)),
          dialect,
          line,
        );
        pos = cut;
      }
    }
    buf.copyWithin(0, cut, total);
    have = total - cut;
  }
  return { reader, sha256: hash.digest("hex") };
}

/** The general path: reads the rows as text, in pieces that end at a line break outside quotes,
 * into `reader`; returns it with the SHA-256 of the bytes read. Files with quotes are read so. */
function readTextRows(
  file: string,
  fd: number,
  reader: BarReader,
  onRead: ((bytes: number) => void) | null,
): { reader: BarReader; sha256: string } {
  const hash = createHash("sha256");
  const decoder = new StringDecoder("utf8");
  const buf = Buffer.allocUnsafe(CHUNK_BYTES);
  const scanner = new PlainScanner(reader);
  let dialect: Dialect | null = null;
  let carry = "";
  let offset = 0;
  let line = 0;
  let first = true;
  // ASCII bytes are their own latin1 string, which is much cheaper to make than a UTF-8 decode;
  // once a non-ASCII byte is seen the decoder (which carries split characters) takes over.
  let ascii = true;
  for (;;) {
    const got = fs.readSync(fd, buf, 0, CHUNK_BYTES, offset);
    offset += got;
    onRead?.(offset);
    const atEnd = got === 0;
    let text: string;
    if (atEnd) {
      text = carry + decoder.end();
    } else {
      const bytes = buf.subarray(0, got);
      hash.update(bytes);
      if (ascii) ascii = isAscii(bytes);
      text = carry + (ascii ? bytes.toString("latin1") : decoder.write(bytes));
    }
    if (first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    if (dialect === null) {
      if (!atEnd && !/[\r\n]/.test(text)) {
        carry = text;
        continue;
      }
      dialect = sniffDialect(text);
    }
    const end = atEnd ? text.length : cutPoint(text, dialect.breakChar);
    if (end > 0) {
      const piece = end === text.length ? text : text.slice(0, end);
      line = piece.includes('"')
        ? parseQuoted(file, piece, dialect, reader, line)
        : scanner.scan(piece, dialect, line);
    }
    carry = end === text.length ? "" : text.slice(end);
    if (carry.length > MAX_LINE_BYTES) {
      // Only a quoted field can carry a line break, so this is a quote that never closes.
      throw new DataError({
        file,
        line: line + 1,
        column: null,
        problem: "broken quoting (a quoted field runs on for more than 1 MiB)",
        fix: "Close every opening double quote, and double any quote inside a quoted field.",
      });
    }
    if (atEnd) break;
  }
  return { reader, sha256: hash.digest("hex") };
}

interface Dialect {
  newline: "\r\n" | "\n" | "\r";
  breakChar: "\n" | "\r";
  delimiter: string;
}

/**
 * Where the rows complete in `text` end: after its last line break outside quotes (0 if none).
 * Quotes are counted only when there are any, the common case being a file without them.
 */
function cutPoint(text: string, breakChar: string): number {
  const last = text.lastIndexOf(breakChar);
  if (last < 0) return 0;
  const firstQuote = text.indexOf('"');
  if (firstQuote < 0 || firstQuote > last) return last + 1;
  // An odd number of quotes before a break means the break is inside a quoted field.
  let quotes = 0;
  let cut = 0;
  let from = 0;
  for (let br = text.indexOf(breakChar); br >= 0; br = text.indexOf(breakChar, br + 1)) {
    quotes += countQuotes(text, from, br);
    from = br;
    if (quotes % 2 === 0) cut = br + 1;
  }
  return cut;
}

function countQuotes(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('"', from); i >= 0 && i < to; i = text.indexOf('"', i + 1)) n++;
  return n;
}

/**
 * The common case, a piece without quotes: split lines and cells with indexOf and hand the reader
 * cell ranges, so no row arrays or cell strings are made. Papaparse stays the parser of anything
 * quoted (parseQuoted).
 */
class PlainScanner {
  private starts = new Int32Array(64);
  private ends = new Int32Array(64);

  constructor(private readonly reader: BarReader) {}

  /** Pushes every line of `piece`; returns the number of the last line pushed. */
  scan(piece: string, dialect: Dialect, lineBefore: number): number {
    const br = dialect.breakChar;
    const crlf = dialect.newline === "\r\n";
    const delimiter = dialect.delimiter;
    let line = lineBefore;
    let pos = 0;
    while (pos < piece.length) {
      let next = piece.indexOf(br, pos);
      if (next < 0) next = piece.length;
      let end = next;
      if (crlf && end > pos && piece.charCodeAt(end - 1) === 13) end--;
      let count = 0;
      let cellStart = pos;
      for (;;) {
        if (count + 1 >= this.starts.length) this.growTo(2 * (count + 1));
        const d = piece.indexOf(delimiter, cellStart);
        if (d < 0 || d >= end) break;
        this.starts[count] = cellStart;
        this.ends[count] = d;
        count++;
        cellStart = d + 1;
      }
      this.starts[count] = cellStart;
      this.ends[count] = end;
      count++;
      this.reader.pushRange(piece, this.starts, this.ends, count, ++line);
      pos = next + 1;
    }
    return line;
  }

  private growTo(size: number): void {
    const starts = new Int32Array(size);
    const ends = new Int32Array(size);
    starts.set(this.starts);
    ends.set(this.ends);
    this.starts = starts;
    this.ends = ends;
  }
}

// Only a file with quoted fields needs papaparse: it loads on the first such piece, not with the
// loader (every run's start-up).
let papa: typeof Papa | null = null;
function papaparse(): typeof Papa {
  papa ??= createRequire(import.meta.url)("papaparse") as typeof Papa;
  return papa;
}

/** A piece with quotes, parsed by papaparse; returns the number of the last line pushed. */
function parseQuoted(
  file: string,
  piece: string,
  dialect: Dialect,
  reader: BarReader,
  lineBefore: number,
): number {
  const result = papaparse().parse<string[]>(piece, {
    header: false,
    skipEmptyLines: false,
    newline: dialect.newline,
    delimiter: dialect.delimiter,
  });
  const quoteError = result.errors.find((e) => e.type === "Quotes");
  if (quoteError !== undefined) {
    throw new DataError({
      file,
      line: lineBefore + (quoteError.row ?? 0) + 1,
      column: null,
      problem: `broken quoting (${quoteError.message})`,
      fix: "Close every opening double quote, and double any quote inside a quoted field.",
    });
  }
  const rows = result.data;
  // Papaparse counts rows, blank ones included (skipEmptyLines is off), which gives line numbers.
  // A piece that ends with a newline yields one empty row after it: that is the next piece's start.
  const last = rows[rows.length - 1];
  const n =
    piece.endsWith(dialect.newline) && last !== undefined && last.length === 1 && last[0] === ""
      ? rows.length - 1
      : rows.length;
  let line = lineBefore;
  for (let k = 0; k < n; k++) reader.push(rows[k] as string[], ++line);
  return line;
}

/**
 * Newline and delimiter from the header line. Papaparse can guess them too, but its delimiter
 * guess re-splits the whole input once per candidate, which triples the time on a large file.
 */
function sniffDialect(text: string): Dialect {
  const lf = text.indexOf("\n");
  const newline =
    lf < 0 ? (text.includes("\r") ? "\r" : "\n") : text[lf - 1] === "\r" ? "\r\n" : "\n";
  const end = text.indexOf(newline);
  const header = end < 0 ? text : text.slice(0, end);
  let delimiter = ",";
  let best = 0;
  for (const candidate of [",", ";", "\t", "|"]) {
    const count = header.split(candidate).length - 1;
    if (count > best) {
      best = count;
      delimiter = candidate;
    }
  }
  return { newline, breakChar: newline === "\r" ? "\r" : "\n", delimiter };
}
