import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DataError } from "../../src/data/data-error.js";
import { loadCsv } from "../../src/data/load-csv.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-load-csv-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let fileCount = 0;
function write(content: string, name?: string): string {
  const file = path.join(dir, name ?? `bars${++fileCount}.csv`);
  fs.writeFileSync(file, content);
  return file;
}

/** Loads `file`, expecting a DataError at `line` (and `column`), and returns it. */
function rejects(
  file: string,
  line: number | null,
  column: string | null,
  opts: Parameters<typeof loadCsv>[1] = {},
): DataError {
  let caught: unknown;
  try {
    loadCsv(file, opts);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(DataError);
  const e = caught as DataError;
  expect(e.exitCode).toBe(2);
  expect(e.file).toBe(file);
  expect(e.line).toBe(line);
  expect(e.column).toBe(column);
  expect(e.message.startsWith(line === null ? `${file}: ` : `${file}:${line}: `)).toBe(true);
  if (column !== null) {
    expect(e.message).toContain(`column ${column === "" ? "(unnamed)" : column}: `);
  }
  return e;
}

const HEADER = "Date,Open,High,Low,Close,Volume";
const ROW2 = "2020-01-01,10,11,9,10.5,100";
const ROW3 = "2020-01-02,10.5,12,10,11,200";
const ROW4 = "2020-01-03,11,11.5,10.5,11.2,300";
const DAY = 86_400_000;
const JAN_1_2020 = Date.UTC(2020, 0, 1);

/** A valid file with row `line` (2..4) replaced by `row`. */
function withRow(line: number, row: string): string {
  const rows = [HEADER, ROW2, ROW3, ROW4];
  rows[line - 1] = row;
  return `${rows.join("\n")}\n`;
}

describe("loadCsv on a valid file", () => {
  it("returns columns, symbol, source and row count", () => {
    const file = write(`${[HEADER, ROW2, ROW3, ROW4].join("\n")}\n`, "abc_D.csv");
    const { series, warnings, rows, sha256 } = loadCsv(file);
    expect(rows).toBe(3);
    expect(series.length).toBe(3);
    expect(series.symbol).toBe("ABC");
    expect(series.source).toBe(file);
    expect(Array.from(series.time)).toEqual([JAN_1_2020, JAN_1_2020 + DAY, JAN_1_2020 + 2 * DAY]);
    expect(Array.from(series.open)).toEqual([10, 10.5, 11]);
    expect(Array.from(series.high)).toEqual([11, 12, 11.5]);
    expect(Array.from(series.low)).toEqual([9, 10, 10.5]);
    expect(Array.from(series.close)).toEqual([10.5, 11, 11.2]);
    expect(Array.from(series.volume)).toEqual([100, 200, 300]);
    expect(series.close).toBeInstanceOf(Float64Array);
    expect(warnings).toEqual([]);
    expect(sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("uses the symbol option over the file name", () => {
    const file = write(`${[HEADER, ROW2].join("\n")}\n`);
    expect(loadCsv(file, { symbol: "XYZ" }).series.symbol).toBe("XYZ");
  });

  it("accepts a BOM, CRLF, quoted fields, no trailing newline and blank trailing lines", () => {
    const crlf = `\uFEFF"Date","Open","High","Low","Close","Volume"\r\n"2020-01-01","10","11","9","10.5","100"\r\n${ROW3}\r\n\r\n  \r\n`;
    const { series } = loadCsv(write(crlf));
    expect(series.length).toBe(2);
    expect(Array.from(series.close)).toEqual([10.5, 11]);
    const bare = loadCsv(write([HEADER, ROW2, ROW3].join("\n")));
    expect(Array.from(bare.series.volume)).toEqual([100, 200]);
  });

  it("keeps counting lines across blank lines in the middle", () => {
    const file = write(`${HEADER}\n${ROW2}\n\n${ROW3}\n2020-01-04,11,11.5,10.5,abc,300\n`);
    // header 1, ROW2 2, blank 3, ROW3 4, bad row 5
    rejects(file, 5, "Close");
  });

  it("ignores Adj Close and other extra columns, even with quoted commas", () => {
    const file = write(
      'Date,Open,High,Low,Close,Adj Close,Volume,Note\n2020-01-01,10,11,9,10.5,8.1,100,"up, then down"\n',
    );
    const { series } = loadCsv(file);
    expect(series.close[0]).toBe(10.5);
    expect(series.volume[0]).toBe(100);
  });

  it("matches aliases case-insensitively and reads ; delimited files", () => {
    const file = write(" TimeStamp ;O;h;L;c;VOL\n2020-01-01;10;11;9;10.5;100\n");
    const { series } = loadCsv(file);
    expect([series.time[0], series.open[0], series.close[0], series.volume[0]]).toEqual([
      JAN_1_2020,
      10,
      10.5,
      100,
    ]);
  });

  it("reads an unnamed (or 'Unnamed: 0') first date column", () => {
    for (const header of [",Open,High,Low,Close,Volume", "Unnamed: 0,Open,High,Low,Close,Volume"]) {
      const { series } = loadCsv(write(`${header}\n2020-01-01 09:00:00,10,11,9,10.5,100\n`));
      expect(series.time[0]).toBe(JAN_1_2020 + 9 * 3_600_000);
    }
  });

  it("joins separate Date and Time columns", () => {
    const file = write("Date,Time,Open,High,Low,Close\n2020-01-01,09:30:00,10,11,9,10.5\n");
    // 09:30 = 9.5 h = 34_200_000 ms
    expect(loadCsv(file).series.time[0]).toBe(JAN_1_2020 + 34_200_000);
  });

  it("fills a missing volume column with 0 and warns", () => {
    const file = write(
      "Date,Open,High,Low,Close\n2020-01-01,10,11,9,10.5\n2020-01-02,10.5,12,10,11\n",
    );
    const { series, warnings } = loadCsv(file);
    expect(Array.from(series.volume)).toEqual([0, 0]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(file);
    expect(warnings[0]).toContain("volume is 0");
  });

  it("loads thousands of rows with exact values", () => {
    const lines = [HEADER];
    for (let i = 0; i < 5000; i++) {
      const date = new Date(JAN_1_2020 + i * DAY).toISOString().slice(0, 10);
      lines.push(`${date},${100 + i},${101 + i},${99 + i},${100.5 + i},${i}`);
    }
    const { series } = loadCsv(write(lines.join("\n")));
    expect(series.length).toBe(5000);
    // last row i = 4999: close 100.5 + 4999 = 5099.5, time Jan 1 2020 + 4999 days
    expect(series.close[4999]).toBe(5099.5);
    expect(series.time[4999]).toBe(JAN_1_2020 + 4999 * DAY);
  });
});

describe("files larger than one parse chunk (1 MiB)", () => {
  // 40_000 rows of about 45 characters is about 1.8 MB, so rows straddle chunk boundaries.
  const ROWS = 40_000;
  const lines = [HEADER];
  for (let i = 0; i < ROWS; i++) {
    const date = new Date(JAN_1_2020 + i * 60_000).toISOString().slice(0, 16).replace("T", " ");
    lines.push(`${date},${100 + i},${102 + i},${99 + i},${101 + i},${i}`);
  }

  it("reads every row exactly once, in order", () => {
    const { series } = loadCsv(write(lines.join("\n")));
    expect(series.length).toBe(ROWS);
    let wrong = 0;
    for (let i = 0; i < ROWS; i++) {
      if (series.time[i] !== JAN_1_2020 + i * 60_000 || series.open[i] !== 100 + i) wrong++;
      if (series.close[i] !== 101 + i || series.volume[i] !== i) wrong++;
    }
    expect(wrong).toBe(0);
  });

  it("tells the bytes parsed as it goes, up to the file's size, in both readings", () => {
    const text = lines.join("\n");
    for (const bytePath of [true, false]) {
      const seen: number[] = [];
      loadCsv(write(text), { onRead: (b) => seen.push(b) }, bytePath);
      const parsed = seen.filter((b) => b > 0);
      // Several pieces, never going back, ending at the whole file.
      expect(parsed.length).toBeGreaterThan(2);
      expect(parsed).toEqual([...parsed].sort((x, y) => x - y));
      expect(seen.at(-1)).toBe(Buffer.byteLength(text));
      // The first pass (counting lines) tells 0 bytes parsed, first.
      expect(seen[0]).toBe(0);
    }
  });

  it("reports the right line for a bad row far into the file", () => {
    const bad = [...lines];
    // data row i sits on line i + 2; row 39_999 is on line 40_001
    bad[40_000] = bad[40_000]?.replace(/,\d+$/, ",oops") ?? "";
    rejects(write(bad.join("\n")), 40_001, "Volume");
  });
});

describe("loadCsv rejects bad files with a DataError", () => {
  it("a missing file", () => {
    const e = rejects(path.join(dir, "nope.csv"), null, null);
    expect(e.message).toContain("no such file");
  });

  it("an empty (0 byte) file", () => {
    expect(rejects(write(""), null, null).message).toContain("the file is empty");
  });

  it("a whitespace-only file", () => {
    expect(rejects(write("  \n\n\t\r\n"), null, null).message).toContain("the file is empty");
  });

  it("a header without data rows", () => {
    expect(rejects(write(`${HEADER}\n`), 1, null).message).toContain("no data rows");
    expect(rejects(write(`${HEADER}\n\n\n`), 1, null).message).toContain("no data rows");
  });

  it("a missing required column, listing what was found", () => {
    const e = rejects(write("Date,Open,High,Low,Volume\n2020-01-01,10,11,9,100\n"), 1, null);
    expect(e.message).toContain("missing required column Close");
    expect(e.message).toContain("(found: Date, Open, High, Low, Volume)");
  });

  it("an unnamed first column that holds row numbers, not dates", () => {
    const e = rejects(write(",Open,High,Low,Close\n0,10,11,9,10.5\n"), 1, null);
    expect(e.message).toContain("missing required column Date");
  });

  it("two columns with the same role", () => {
    const e = rejects(write("Date,Close,Open,High,Low,C\n2020-01-01,1,1,1,1,1\n"), 1, "C");
    expect(e.message).toContain("columns Close and C both name the close column");
  });

  it("an unparsable number", () => {
    const e = rejects(write(withRow(3, "2020-01-02,abc,12,10,11,200")), 3, "Open");
    expect(e.message).toContain('"abc" is not a decimal number');
  });

  it("an empty cell", () => {
    const e = rejects(write(withRow(4, "2020-01-03,11,11.5,10.5,,300")), 4, "Close");
    expect(e.message).toContain("the cell is empty");
  });

  it.each(["NaN", "nan"])("a %s cell", (nan) => {
    const e = rejects(write(withRow(2, `2020-01-01,10,11,9,${nan},100`)), 2, "Close");
    expect(e.message).toContain("NaN is not a price");
  });

  it("an infinite number", () => {
    const e = rejects(write(withRow(3, "2020-01-02,10.5,Infinity,10,11,200")), 3, "High");
    expect(e.message).toContain('"Infinity" is not a decimal number');
    const overflow = rejects(write(withRow(3, "2020-01-02,10.5,1e999,10,11,200")), 3, "High");
    expect(overflow.message).toContain('"1e999" is not a finite number');
  });

  it("a hexadecimal or binary number (decimal notation only)", () => {
    const e = rejects(write(withRow(3, "2020-01-02,10.5,0x10,10,11,200")), 3, "High");
    expect(e.message).toContain('"0x10" is not a decimal number');
    expect(e.message).toContain("decimal notation only");
    rejects(write(withRow(3, "2020-01-02,10.5,11,10,11,0b11")), 3, "Volume");
  });

  it("an empty volume cell (volume is validated too when present)", () => {
    rejects(write(withRow(2, "2020-01-01,10,11,9,10.5,")), 2, "Volume");
  });

  it.each([
    ["2020-13-01", "month 13"],
    ["2020-02-30", "day 30 does not exist in 2020-02"],
    ["yesterday", "not in a recognised date format"],
  ])("an invalid date %s", (date, why) => {
    const e = rejects(write(withRow(3, `${date},10.5,12,10,11,200`)), 3, "Date");
    expect(e.message).toContain(`"${date}" is not a valid timestamp: `);
    expect(e.message).toContain(why);
  });

  it("names the unnamed date column of a pandas export", () => {
    const file = write(",Open,High,Low,Close\n2020-01-01,10,11,9,10.5\n2020-01-32,10,11,9,10.5\n");
    expect(rejects(file, 3, "").message).toContain("day 32 does not exist in 2020-01");
  });

  it.each([
    ["zero open", "2020-01-02,0,12,10,11,200", "Open", "open 0 is not positive"],
    ["negative close", "2020-01-02,10.5,12,10,-11,200", "Close", "close -11 is not positive"],
    ["zero low", "2020-01-02,10.5,12,0,11,200", "Low", "low 0 is not positive"],
    ["negative high", "2020-01-02,10.5,-12,10,11,200", "High", "high -12 is not positive"],
    ["negative volume", "2020-01-02,10.5,12,10,11,-1", "Volume", "volume -1 is negative"],
    [
      "high below close",
      "2020-01-02,10.5,10.8,10,11,200",
      "High",
      "high 10.8 is below max(open 10.5, close 11)",
    ],
    [
      "low above open",
      "2020-01-02,10.5,12,10.6,11,200",
      "Low",
      "low 10.6 is above min(open 10.5, close 11)",
    ],
    // high 9 < low 10: caught as high < max(open, close) first
    ["high below low", "2020-01-02,10.5,9,10,11,200", "High", "high 9 is below max"],
  ])("a %s", (_name, row, column, why) => {
    expect(rejects(write(withRow(3, row)), 3, column).message).toContain(why);
  });

  it("accepts a volume of 0", () => {
    expect(loadCsv(write(withRow(3, "2020-01-02,10.5,12,10,11,0"))).series.volume[1]).toBe(0);
  });

  it.each([
    ["too few", "2020-01-02,10.5,12,10,11", "the row has 5 fields but the header has 6"],
    ["too many", "2020-01-02,10.5,12,10,11,200,7", "the row has 7 fields but the header has 6"],
  ])("a row with %s fields", (_name, row, why) => {
    expect(rejects(write(withRow(4, row)), 4, null).message).toContain(why);
  });

  it("broken quoting", () => {
    rejects(write(`${HEADER}\n${ROW2}\n"2020-01-02,10.5,12,10,11,200\n`), 3, null);
  });

  it("adjacent duplicate timestamps, naming both lines", () => {
    const e = rejects(write(withRow(4, "2020-01-02,11,11.5,10.5,11.2,300")), 4, "Date");
    expect(e.message).toContain("duplicate timestamp 2020-01-02 on lines 3 and 4");
  });

  it("duplicate timestamps in an unsorted file, naming both lines", () => {
    const file = write(`${HEADER}\n${ROW3}\n${ROW2}\n2020-01-02,11,11.5,10.5,11.2,300\n`);
    const e = rejects(file, 4, "Date");
    expect(e.message).toContain("duplicate timestamp 2020-01-02 on lines 2 and 4");
  });

  it("an unknown time zone", () => {
    const file = write(withRow(2, ROW2));
    expect(rejects(file, null, null, { tz: "Nowhere/Land" }).message).toContain("Nowhere/Land");
  });
});

describe("unsorted rows", () => {
  // Line 3 (Jan 1) is earlier than line 2 (Jan 2): the first out-of-order row is line 3.
  const unsorted = `${HEADER}\n${ROW3}\n${ROW2}\n${ROW4}\n`;

  it("are sorted by time with a warning naming the file and the first out-of-order line", () => {
    const file = write(unsorted);
    const { series, warnings } = loadCsv(file);
    expect(Array.from(series.time)).toEqual([JAN_1_2020, JAN_1_2020 + DAY, JAN_1_2020 + 2 * DAY]);
    expect(Array.from(series.open)).toEqual([10, 10.5, 11]);
    expect(Array.from(series.volume)).toEqual([100, 200, 300]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`${file}:3: `);
    expect(warnings[0]).toContain("sorted");
  });

  it("sorts a newest-first file into ascending order", () => {
    const { series } = loadCsv(write(`${HEADER}\n${ROW4}\n${ROW3}\n${ROW2}\n`));
    expect(Array.from(series.close)).toEqual([10.5, 11, 11.2]);
  });

  it("are rejected under strict, naming the line", () => {
    const e = rejects(write(unsorted), 3, "Date", { strict: true });
    expect(e.message).toContain("2020-01-01 comes after 2020-01-02 on line 2");
  });
});

describe("time zones", () => {
  it("converts offset timestamps to the tz wall clock", () => {
    const file = write("Datetime,Open,High,Low,Close\n2020-01-01T12:00:00Z,10,11,9,10.5\n");
    // 12:00 UTC is 07:00 in New York (UTC-5 in January)
    expect(loadCsv(file, { tz: "America/New_York" }).series.time[0]).toBe(
      JAN_1_2020 + 7 * 3_600_000,
    );
    expect(loadCsv(file).series.time[0]).toBe(JAN_1_2020 + 12 * 3_600_000);
  });
});
