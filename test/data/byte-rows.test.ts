import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { BarReader } from "../../src/data/bar-reader.js";
import { DataError } from "../../src/data/data-error.js";
import { type LoadCsvOptions, type LoadedCsv, loadCsv } from "../../src/data/load-csv.js";

// The loader reads rows of the common shape straight from the bytes (ByteRows) and everything
// else as text (the general path). loadCsv(file, opts, false) reads every row on the general
// path, so each test here loads a file both ways and requires the same result to the bit: the
// same values (-0 included), warnings, hash, or the same error.

const dataDir = fileURLToPath(new URL("../../data/", import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-byte-rows-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const COLUMNS = ["time", "open", "high", "low", "close", "volume"] as const;

type Outcome = { loaded: LoadedCsv } | { error: string };

function outcome(file: string, opts: LoadCsvOptions, bytePath: boolean): Outcome {
  try {
    return { loaded: loadCsv(file, opts, bytePath) };
  } catch (error) {
    expect(error).toBeInstanceOf(DataError);
    return { error: (error as Error).message };
  }
}

/** Index of the first element whose bits differ, or -1 (so -0 and 0 differ, NaN equals NaN). */
function firstDifference(a: Float64Array, b: Float64Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  const x = new BigUint64Array(a.buffer, a.byteOffset, a.length);
  const y = new BigUint64Array(b.buffer, b.byteOffset, b.length);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return i;
  return -1;
}

/** Loads `file` on both paths, requires identical outcomes, and returns the byte path's. */
function loadBoth(file: string, opts: LoadCsvOptions = {}): Outcome {
  const fast = outcome(file, opts, true);
  const general = outcome(file, opts, false);
  if ("error" in general) {
    expect(fast).toEqual(general);
    return fast;
  }
  expect("loaded" in fast ? "loaded" : (fast as { error: string }).error).toBe("loaded");
  const a = (fast as { loaded: LoadedCsv }).loaded;
  const b = general.loaded;
  expect(a.rows).toBe(b.rows);
  expect(a.warnings).toEqual(b.warnings);
  expect(a.sha256).toBe(b.sha256);
  for (const column of COLUMNS) {
    expect({ column, at: firstDifference(a.series[column], b.series[column]) }).toEqual({
      column,
      at: -1,
    });
  }
  return fast;
}

function write(name: string, text: string | Buffer): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

function loaded(o: Outcome): LoadedCsv {
  if ("error" in o) throw new Error(`expected a load, got: ${o.error}`);
  return o.loaded;
}

function bits(x: number): bigint {
  return new BigUint64Array(new Float64Array([x]).buffer)[0] as bigint;
}

const bundled = fs
  .readdirSync(dataDir)
  .filter((f) => f.endsWith(".csv") || f.endsWith(".txt"))
  .sort();

describe("the byte path reads the bundled data exactly as the general path", () => {
  it("finds the bundled files", () => {
    expect(bundled.length).toBeGreaterThanOrEqual(8);
  });

  for (const name of bundled) {
    it(`${name}: identical columns, warnings and hash on both paths`, () => {
      loadBoth(path.join(dataDir, name));
    });

    it(`${name}: the byte path itself reads every row after the first data row`, () => {
      // Header and first data row through the general path (they fix the layout), then ByteRows
      // over the rest of the file's bytes: it must take every row, leaving none to the text path.
      const file = path.join(dataDir, name);
      const bytes = fs.readFileSync(file);
      const text = bytes.toString("latin1");
      const lines = text.split("\n");
      const reader = new BarReader(file, {}, {}, lines.length);
      reader.push((lines[0] as string).split(","), 1);
      reader.push((lines[1] as string).split(","), 2);
      const rows = reader.byteRows(",", "\n");
      if (rows === null) throw new Error("no byte path for this file");
      const start = (lines[0] as string).length + (lines[1] as string).length + 2;
      const end = bytes.lastIndexOf(10) + 1;
      expect(rows.read(bytes, start, end, 2)).toBe(end);
      expect(rows.line).toBe(text.slice(0, end).split("\n").length - 1);
      const { bars } = reader.finish();
      const general = loadCsv(file, {}, false).series;
      const n = bars.time.length;
      for (const column of COLUMNS) {
        expect({
          column,
          at: firstDifference(bars[column], general[column].subarray(0, n)),
        }).toEqual({
          column,
          at: -1,
        });
      }
    });
  }
});

const HEADER = "Date,Open,High,Low,Close,Volume";

/** `n` minute bars from 2020-01-01 00:00 with prices such as 100.37 (all plain decimals). */
function minuteRows(n: number, from = 0): string[] {
  const rows: string[] = [];
  for (let i = from; i < from + n; i++) {
    const t = new Date(Date.UTC(2020, 0, 1) + i * 60_000).toISOString().slice(0, 19);
    const p = 100 + (i % 97) / 100;
    rows.push(
      `${t.replace("T", " ")},${p},${(p + 0.05).toFixed(2)},${(p - 0.05).toFixed(2)},${p},${i % 1000}`,
    );
  }
  return rows;
}

describe("tricky rows read the same on both paths", () => {
  it("decimals of up to 15 digits are the very doubles parseFloat gives (0.1 + 0.2 style)", () => {
    // Hand-picked cells whose nearest doubles are not what naive arithmetic gives: 0.3 is not
    // 0.1 + 0.2, 1.005 * 1000 is not 1005, and 15-digit mantissas sit at the edge of exactness.
    const cells = [
      "0.3",
      "0.30000000000000",
      "1.005",
      "100.07",
      "4.35",
      "0.000000000000001",
      "999999999999999",
      "123456789.012345",
      "9007199.25474099",
      "1.7976931348623",
      "5.",
      ".5",
      "+2.675",
      "0.1",
    ];
    const rows = cells.map(
      (cell, i) =>
        `2020-01-02 00:${String(i).padStart(2, "0")},${cell},${cell},${cell},${cell},${cell}`,
    );
    const file = write(
      "decimals.csv",
      `${HEADER}\n${minuteRows(1).join("\n")}\n${rows.join("\n")}\n`,
    );
    const s = loaded(loadBoth(file)).series;
    cells.forEach((cell, i) => {
      for (const column of ["open", "high", "low", "close", "volume"] as const) {
        expect({ cell, column, bits: bits(s[column][i + 1] as number) }).toEqual({
          cell,
          column,
          bits: bits(Number.parseFloat(cell)),
        });
      }
    });
  });

  it("random decimals of 1 to 15 digits read as parseFloat reads them", () => {
    let seed = 12345;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const cells: string[] = [];
    for (let i = 0; i < 4000; i++) {
      const digits = 1 + Math.floor(next() * 15);
      let m = "";
      for (let d = 0; d < digits; d++) m += String(Math.floor(next() * 10));
      if (/^0*$/.test(m)) m = `${m.slice(1)}7`;
      const point = Math.floor(next() * (digits + 1));
      cells.push(`${m.slice(0, point)}.${m.slice(point)}`.replace(/^\.$/, "1"));
    }
    const rows = cells.map((cell, i) => {
      const t = new Date(Date.UTC(2021, 0, 1) + i * 60_000).toISOString().slice(0, 19);
      return `${t},${cell},${cell},${cell},${cell},${cell}`;
    });
    const file = write("random-decimals.csv", `${HEADER}\n${rows.join("\n")}\n`);
    const s = loaded(loadBoth(file)).series;
    cells.forEach((cell, i) => {
      expect({ cell, bits: bits(s.close[i] as number) }).toEqual({
        cell,
        bits: bits(Number.parseFloat(cell)),
      });
    });
  });

  it("16 to 17 digit decimals (as pandas writes floats) read as parseFloat reads them", () => {
    const cells = [
      "0.30000000000000004",
      "99.89761912895567",
      "1.0716999999999999",
      "1234567.8901234567",
      "0.1000000000000000055511151231257827",
      "+100.00000000000001",
      "12345678901234567890",
    ];
    const rows = cells.map(
      (cell, i) => `2020-01-02 00:0${i},${cell},${cell},${cell},${cell},${cell}`,
    );
    const file = write(
      "pandas.csv",
      `${HEADER}\n${minuteRows(40).join("\n")}\n${rows.join("\n")}\n`,
    );
    const s = loaded(loadBoth(file)).series;
    cells.forEach((cell, i) => {
      expect({ cell, bits: bits(s.high[40 + i] as number) }).toEqual({
        cell,
        bits: bits(Number.parseFloat(cell)),
      });
    });
    // 400 digits overflow to Infinity: the general path's error, on its line.
    const huge = write(
      "huge.csv",
      `${HEADER}\n${minuteRows(40).join("\n")}\n2020-01-02 00:00,1${"0".repeat(400)},1,1,1,1\n`,
    );
    expect(JSON.stringify(loadBoth(huge))).toContain(":42: column Open: ");
    const hugeVolume = write(
      "huge-volume.csv",
      `${HEADER}\n${minuteRows(40).join("\n")}\n2020-01-02 00:00,1,1,1,1,1${"0".repeat(400)}\n`,
    );
    expect(JSON.stringify(loadBoth(hugeVolume))).toContain(":42: column Volume: ");
  });

  it("a file whose every row the byte path leaves (spaces after the commas) reads as text", () => {
    // 6,000 rows: two 256 KiB pieces, so the second piece's line numbers rest on the first's.
    const rows = minuteRows(6000).map((r) => r.replaceAll(",", ", "));
    rows.push("2020-01-10 00:00:00, 100, 99, 98, 100, 1");
    const o = loadBoth(
      write("spaced.csv", `${HEADER.replaceAll(",", ", ")}\n${rows.join("\n")}\n`),
    );
    expect(JSON.stringify(o)).toContain("spaced.csv:6002: column  High: high 99 is below max");
  });

  it("exponents, leading '+', spaces and long mantissas mid-file are read as the general path reads them", () => {
    const body = minuteRows(40);
    body[5] = "2020-01-01 00:05:00,1e2,1.01e2,99,1E2,5e3";
    body[9] = "2020-01-01 00:09:00,+100,+101,+99,+100.5,+7";
    body[13] = "2020-01-01 00:13:00, 100 ,101 , 99, 100.5 , 7 ";
    body[17] = "2020-01-01 00:17:00,100.00000000000001,101,99,100.12345678901234567,1";
    body[21] = " 2020-01-01 00:21:00 ,100,101,99,100,1";
    body[25] = "2020-01-01 00:25:00,100,101,99,100,-0";
    body[26] = "2020-01-01 00:26:00,100,101,99,100,+0";
    const s = loaded(loadBoth(write("mixed.csv", `${HEADER}\n${body.join("\n")}\n`))).series;
    expect([s.open[5], s.high[5], s.close[5], s.volume[5]]).toEqual([100, 101, 100, 5000]);
    expect([s.open[9], s.high[9], s.low[9], s.close[9], s.volume[9]]).toEqual([
      100, 101, 99, 100.5, 7,
    ]);
    expect([s.open[13], s.close[13], s.volume[13]]).toEqual([100, 100.5, 7]);
    expect(s.close[17]).toBe(100.12345678901235);
    expect(s.time[21]).toBe(Date.UTC(2020, 0, 1, 0, 21));
    expect(Object.is(s.volume[25], -0)).toBe(true);
    expect(Object.is(s.volume[26], 0)).toBe(true);
    expect(s.length).toBe(40);
  });

  it("CRLF, CR-only, semicolons and tabs", () => {
    const rows = minuteRows(30);
    const crlf = loaded(
      loadBoth(write("crlf.csv", `${HEADER}\r\n${rows.join("\r\n")}\r\n`)),
    ).series;
    expect(crlf.length).toBe(30);
    expect(crlf.volume[29]).toBe(29);
    // An error after CRLF rows names the line the general path names.
    const bad = write("crlf-bad.csv", `${HEADER}\r\n${rows.join("\r\n")}\r\n${rows[0]}x\r\n`);
    expect(JSON.stringify(loadBoth(bad))).toContain("crlf-bad.csv:32: column Volume");
    // A stray CR in an LF file stays in the last cell, where the general path trims it.
    const stray = loaded(
      loadBoth(write("stray-cr.csv", `${HEADER}\n${rows.join("\r\n")}\n`)),
    ).series;
    expect(stray.volume[29]).toBe(29);
    const cr = loaded(loadBoth(write("cr.csv", `${HEADER}\r${rows.join("\r")}\r`))).series;
    expect(cr.close[29]).toBe(Number.parseFloat((rows[29] as string).split(",")[4] as string));
    const semi = rows.map((r) => r.replaceAll(",", ";"));
    loadBoth(write("semi.csv", `${HEADER.replaceAll(",", ";")}\n${semi.join("\n")}\n`));
    const tab = rows.map((r) => r.replaceAll(",", "\t"));
    expect(
      loaded(loadBoth(write("tab.csv", `${HEADER.replaceAll(",", "\t")}\n${tab.join("\n")}`))).rows,
    ).toBe(30);
  });

  it("quoted fields, a byte order mark, non-ASCII text and blank lines", () => {
    const rows = minuteRows(20);
    const quoted = rows.map((r, i) =>
      i % 3 === 0 ? r.replace(/^([^,]+),([^,]+)/, '"$1","$2"') : r,
    );
    loadBoth(write("quoted.csv", `${HEADER}\n${quoted.join("\n")}\n`));
    loadBoth(write("bom.csv", `\ufeff${HEADER}\n${rows.join("\n")}\n`));
    const noted = rows.map((r, i) => `${r},${i === 7 ? "Kurssprung über 5 %" : "ok"}`);
    const s = loaded(loadBoth(write("notes.csv", `${HEADER},Note\n${noted.join("\n")}\n`))).series;
    expect(s.length).toBe(20);
    const blank = [...rows.slice(0, 10), "", "   ", ...rows.slice(10)];
    loadBoth(write("blank.csv", `${HEADER}\n${blank.join("\n")}\n\n`));
  });

  it("ISO shapes: date only, T, seconds, milliseconds, Z and offsets, with and without --tz", () => {
    // One day apart, so file order is time order whatever the offsets do.
    const times = [
      "2020-03-01",
      "2020/03/02",
      "2020-03-03 09:30",
      "2020-03-04T09:31",
      "2020-03-05T09:32:05",
      "2020-03-06T09:33:05.1",
      "2020-03-07T09:34:05.12",
      "2020-03-08T09:35:05.123",
      "2020-03-09T09:36:05.1239",
      "2020-03-10T09:37:05Z",
      "2020-03-11T09:38:05z",
      "2020-03-12T04:39:05-05:00",
      "2020-03-13T15:40:05+05:30",
      "2020-03-14T15:41:05+0530",
      "2020-03-15T15:42:05+05",
      "2020-03-16T09:43Z",
      // The same month and day in the next year, one row after the other.
      "2021-03-16T09:43Z",
    ];
    const rows = times.map((t) => `${t},10,11,9,10.5,100`);
    const file = write("iso.csv", `${HEADER}\n${rows.join("\n")}\n`);
    const plain = loaded(loadBoth(file)).series;
    expect(plain.time[0]).toBe(Date.UTC(2020, 2, 1));
    expect(plain.time[16]).toBe(Date.UTC(2021, 2, 16, 9, 43));
    expect(plain.time[5]).toBe(Date.UTC(2020, 2, 6, 9, 33, 5, 100));
    expect(plain.time[7]).toBe(Date.UTC(2020, 2, 8, 9, 35, 5, 123));
    expect(plain.time[8]).toBe(Date.UTC(2020, 2, 9, 9, 36, 5, 123));
    // Without --tz the offset is ignored: the wall clock as written.
    expect(plain.time[11]).toBe(Date.UTC(2020, 2, 12, 4, 39, 5));
    const ny = loaded(loadBoth(file, { tz: "America/New_York" })).series;
    // 09:37:05Z is 05:37:05 in New York (EDT from 8 March 2020).
    expect(ny.time[9]).toBe(Date.UTC(2020, 2, 10, 5, 37, 5));
    // 04:39:05-05:00 is 09:39:05Z, which is 05:39:05 in New York.
    expect(ny.time[11]).toBe(Date.UTC(2020, 2, 12, 5, 39, 5));
    // 15:40:05+05:30 is 10:10:05Z, 06:10:05 in New York; no offset: taken as New York already.
    expect(ny.time[12]).toBe(Date.UTC(2020, 2, 13, 6, 10, 5));
    expect(ny.time[4]).toBe(Date.UTC(2020, 2, 5, 9, 32, 5));
  });

  it("epoch seconds and milliseconds, detected or given, with --tz", () => {
    const s = [1577836800, 1577836860, 1577836920].map((t) => `${t},10,11,9,10.5,100`);
    const ms = [1577836800000, 1577836860000, 1577836920000].map((t) => `${t},10,11,9,10.5,100`);
    const fs1 = write("epoch-s.csv", `${HEADER}\n${s.join("\n")}\n`);
    const fms = write("epoch-ms.csv", `${HEADER}\n${ms.join("\n")}\n`);
    expect(Array.from(loaded(loadBoth(fs1)).series.time)).toEqual([
      Date.UTC(2020, 0, 1, 0, 0),
      Date.UTC(2020, 0, 1, 0, 1),
      Date.UTC(2020, 0, 1, 0, 2),
    ]);
    expect(loaded(loadBoth(fms)).series.time[2]).toBe(Date.UTC(2020, 0, 1, 0, 2));
    expect(loaded(loadBoth(fs1, { timeUnit: "s" })).series.time[1]).toBe(
      Date.UTC(2020, 0, 1, 0, 1),
    );
    // Given as milliseconds, 1577836860 is 1970-01-19.
    expect(loaded(loadBoth(fs1, { timeUnit: "ms" })).series.time[1]).toBe(1577836860);
    expect(loaded(loadBoth(fs1, { tz: "Asia/Tokyo" })).series.time[0]).toBe(
      Date.UTC(2020, 0, 1, 9),
    );
    const negative = ["-86400", "-60", "0"].map((t) => `${t},10,11,9,10.5,100`);
    const fneg = write("epoch-negative.csv", `${HEADER}\n${negative.join("\n")}\n`);
    expect(Array.from(loaded(loadBoth(fneg, { timeUnit: "s" })).series.time)).toEqual([
      -86_400_000, -60_000, 0,
    ]);
  });

  it("layouts the byte path leaves to text: a separate time column, --date-format, --columns", () => {
    const rows = minuteRows(30);
    const split = rows.map((r) => r.replace(" ", ","));
    const clock = loaded(
      loadBoth(write("clock.csv", `Date,Time,Open,High,Low,Close,Volume\n${split.join("\n")}\n`)),
    ).series;
    expect(clock.time[29]).toBe(Date.UTC(2020, 0, 1, 0, 29));
    const dmy = rows.map((r) =>
      r.replace(/^(\d{4})-(\d\d)-(\d\d) (\d\d:\d\d):\d\d/, "$3/$2/$1 $4"),
    );
    const f = write("dmy.csv", `${HEADER}\n${dmy.join("\n")}\n`);
    expect(loaded(loadBoth(f, { dateFormat: "DD/MM/YYYY HH:MM" })).series.time[1]).toBe(
      Date.UTC(2020, 0, 1, 0, 1),
    );
    const renamed = write("renamed.csv", `When,Px,Hi,Lo,Last,Qty\n${rows.join("\n")}\n`);
    const mapped = loaded(
      loadBoth(renamed, {
        columns: { date: "When", open: "Px", high: "Hi", low: "Lo", close: "Last", volume: "Qty" },
      }),
    ).series;
    expect(mapped.volume[29]).toBe(29);
  });

  it("a file of 300 KiB and more: rows across pieces, and a fix-up in every piece", () => {
    const rows = minuteRows(20_000);
    for (let i = 100; i < rows.length; i += 2_500)
      rows[i] = (rows[i] as string).replace(/,(\d+)$/, ",$1e0");
    const s = loaded(loadBoth(write("big.csv", `${HEADER}\n${rows.join("\n")}\n`))).series;
    expect(s.length).toBe(20_000);
    expect(s.volume[2_600]).toBe(600);
  });
});

describe("errors after byte-path rows are the general path's, with their line and column", () => {
  const good = minuteRows(50);
  const cases: [string, string, string][] = [
    ["empty volume", "2020-01-01 00:50:00,100,101,99,100,", "column Volume: the cell is empty"],
    [
      "negative price",
      "2020-01-01 00:50:00,100,101,-99,100,1",
      "column Low: low -99 is not positive",
    ],
    [
      "high below close",
      "2020-01-01 00:50:00,100,101,99,102,1",
      "column High: high 101 is below max(open 100, close 102)",
    ],
    [
      "negative volume",
      "2020-01-01 00:50:00,100,101,99,100,-3",
      "column Volume: volume -3 is negative",
    ],
    [
      "overflow",
      "2020-01-01 00:50:00,100,1e400,99,100,1",
      'column High: "1e400" is not a finite number',
    ],
    ["hex", "2020-01-01 00:50:00,0x64,101,99,100,1", 'column Open: "0x64" is not a decimal number'],
    ["bad day", "2020-02-30 00:50:00,100,101,99,100,1", "day 30 does not exist in 2020-02"],
    ["bad hour", "2020-01-01 24:50:00,100,101,99,100,1", "hour 24 is not between 00 and 23"],
    [
      "too many cells",
      "2020-01-01 00:50:00,100,101,99,100,1,2",
      "the row has 7 fields but the header has 6",
    ],
    [
      "too few cells",
      "2020-01-01 00:50:00,100,101,99,100",
      "the row has 5 fields but the header has 6",
    ],
    ["bad month", "2020-13-01 00:50:00,100,101,99,100,1", "month 13 is not between 01 and 12"],
    ["bad offset", "2020-01-01T00:50:00+24:00,100,101,99,100,1", "the UTC offset is out of range"],
  ];
  for (const [name, row, message] of cases) {
    it(`${name} on line 52`, () => {
      const file = write(
        `bad-${name.replaceAll(" ", "-")}.csv`,
        `${HEADER}\n${good.join("\n")}\n${row}\n${good[0]}\n`,
      );
      const o = loadBoth(file);
      expect("error" in o ? o.error : "loaded").toContain(`${file}:52: `);
      expect("error" in o ? o.error : "loaded").toContain(message);
    });
  }

  it("an epoch file that switches unit names the line that set it", () => {
    const rows = ["1577836800", "1577836860", "1577836920000"].map((t) => `${t},10,11,9,10.5,100`);
    const o = loadBoth(write("units.csv", `${HEADER}\n${rows.join("\n")}\n`));
    expect("error" in o ? o.error : "loaded").toContain(
      ':4: column Date: "1577836920000" is not a valid timestamp: this epoch timestamp looks like milliseconds but the one on line 2 looks like seconds',
    );
  });

  it("--time-unit with ISO dates, and a duplicate timestamp after many rows", () => {
    const iso = write("iso-unit.csv", `${HEADER}\n${good.join("\n")}\n`);
    expect(JSON.stringify(loadBoth(iso, { timeUnit: "s" }))).toContain(
      "--time-unit s expects integer epoch timestamps",
    );
    const dup = write("dup.csv", `${HEADER}\n${good.join("\n")}\n${good[49]}\n`);
    expect(JSON.stringify(loadBoth(dup))).toContain(
      "duplicate timestamp 2020-01-01 00:49:00 on lines 51 and 52",
    );
  });
});
