import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { normalise, parseColumnMapping } from "../../src/data/columns.js";
import { DataError, DataOptionError } from "../../src/data/data-error.js";
import { type LoadCsvOptions, loadCsv } from "../../src/data/load-csv.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-formats-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;
function write(text: string): string {
  const file = path.join(dir, `f${++n}.csv`);
  fs.writeFileSync(file, text);
  return file;
}
const JAN_2_2020 = Date.UTC(2020, 0, 2);

function rejects(file: string, opts: LoadCsvOptions, line: number | null, column: string | null) {
  let caught: unknown;
  try {
    loadCsv(file, opts);
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(DataError);
  const e = caught as DataError;
  expect(e.exitCode).toBe(2);
  expect(e.line).toBe(line);
  expect(e.column).toBe(column);
  expect(e.message.startsWith(line === null ? `${file}: ` : `${file}:${line}: `)).toBe(true);
  return e;
}

describe("epoch timestamps", () => {
  const rows = (a: string, b: string) =>
    `Timestamp,Open,High,Low,Close,Volume\n${a},10,11,9,10.5,1\n${b},10,11,9,10.5,1\n`;

  it("10 digits are seconds, 13 digits are milliseconds, both read as UTC", () => {
    const s = loadCsv(write(rows("1577923200", "1577923260")));
    expect(Array.from(s.series.time)).toEqual([JAN_2_2020, JAN_2_2020 + 60_000]);
    const ms = loadCsv(write(rows("1577923200000", "1577923260000")));
    expect(Array.from(ms.series.time)).toEqual([JAN_2_2020, JAN_2_2020 + 60_000]);
  });

  it("--tz converts an epoch (a UTC instant) to the zone's wall clock", () => {
    const s = loadCsv(write(rows("1577923200", "1577923260")), { tz: "America/New_York" });
    expect(s.series.time[0]).toBe(JAN_2_2020 - 5 * 3_600_000);
  });

  it("--time-unit reads any integer in that unit", () => {
    const s = loadCsv(write(rows("86400", "172800")), { timeUnit: "s" });
    expect(Array.from(s.series.time)).toEqual([86_400_000, 172_800_000]);
  });

  it("11 digits are neither unit: error asking for --time-unit", () => {
    const file = write(rows("15779232000", "15779232600"));
    const e = rejects(file, {}, 2, "Timestamp");
    expect(e.message).toContain("11 digits is neither seconds (9–10 digits) nor milliseconds");
    expect(e.message).toContain("--time-unit s or --time-unit ms");
  });

  it("seconds then milliseconds in one file is an error naming both lines", () => {
    const file = write(rows("1577923200", "1577923260000"));
    const e = rejects(file, {}, 3, "Timestamp");
    expect(e.message).toContain("looks like milliseconds but the one on line 2 looks like seconds");
  });

  it("--time-unit with ISO dates is an error", () => {
    const file = write(rows("2020-01-02", "2020-01-03"));
    const e = rejects(file, { timeUnit: "ms" }, 2, "Timestamp");
    expect(e.message).toContain("--time-unit ms expects integer epoch timestamps");
  });
});

describe("--date-format", () => {
  const file = () =>
    write("Date,Open,High,Low,Close\n02/01/2020,10,11,9,10.5\n03/01/2020,10,11,9,10.5\n");

  it("DD/MM/YYYY reads day first, MM/DD/YYYY month first", () => {
    const f = file();
    expect(loadCsv(f, { dateFormat: "DD/MM/YYYY" }).series.time[0]).toBe(JAN_2_2020);
    expect(loadCsv(f, { dateFormat: "MM/DD/YYYY" }).series.time[0]).toBe(Date.UTC(2020, 1, 1));
  });

  it("DD.MM.YYYY HH:MM:SS with a time", () => {
    const f = write("Date,Open,High,Low,Close\n02.01.2020 09:30:15,10,11,9,10.5\n");
    expect(loadCsv(f, { dateFormat: "DD.MM.YYYY HH:MM:SS" }).series.time[0]).toBe(
      JAN_2_2020 + (9 * 3600 + 30 * 60 + 15) * 1000,
    );
  });

  it("without --date-format a slash date is an error suggesting it", () => {
    const f = file();
    const e = rejects(f, {}, 2, "Date");
    expect(e.message).toContain("cannot be told apart");
    expect(e.message).toContain("--date-format DD/MM/YYYY or --date-format MM/DD/YYYY");
  });

  it("an unknown format is refused before reading", () => {
    const e = rejects(file(), { dateFormat: "DD/MM/YY" }, null, null);
    expect(e.message).toContain('--date-format "DD/MM/YY" is not a date format');
  });

  it("a cell not in the format, or an impossible day, names line and column", () => {
    const f = write("Date,Open,High,Low,Close\n02/01/2020,10,11,9,10.5\n2020-01-03,10,11,9,10.5\n");
    expect(rejects(f, { dateFormat: "DD/MM/YYYY" }, 3, "Date").message).toContain(
      "does not match --date-format DD/MM/YYYY",
    );
    const g = write("Date,Open,High,Low,Close\n31/02/2020,10,11,9,10.5\n");
    expect(rejects(g, { dateFormat: "DD/MM/YYYY" }, 2, "Date").message).toContain(
      "day 31 does not exist in 2020-02",
    );
  });
});

describe("--columns and header names", () => {
  it("maps any header, case-insensitively", () => {
    const f = write("Datum,Erster,Hoch,Tief,Letzter\n2020-01-02,10,11,9,10.5\n");
    const columns = parseColumnMapping("date=datum,open=ERSTER,high=Hoch,low=Tief,close=Letzter");
    const s = loadCsv(f, { columns });
    expect(s.series.close[0]).toBe(10.5);
    expect(s.series.open[0]).toBe(10);
  });

  it("a mapped header missing from the file is an error naming it", () => {
    const f = write("Date,Open,High,Low,Close\n2020-01-02,10,11,9,10.5\n");
    const e = rejects(f, { columns: { close: "Schluss" } }, 1, null);
    expect(e.message).toContain(
      '--columns maps close to "Schluss", but the header has no such column',
    );
  });

  it("an unknown key is refused naming it", () => {
    expect(() => parseColumnMapping("date=Date,price=Close")).toThrow(DataOptionError);
    expect(() => parseColumnMapping("date=Date,price=Close")).toThrow('unknown key "price"');
  });

  it("one rule for names: Open Price and Close Price are both accepted", () => {
    expect(normalise("Open Price")).toBe("open");
    expect(normalise("close_price")).toBe("close");
    expect(normalise("Adj Close")).toBe("adjclose");
    const f = write("Date,Open Price,High Price,Low Price,Close Price\n2020-01-02,10,11,9,10.5\n");
    const s = loadCsv(f);
    expect([s.series.open[0], s.series.high[0], s.series.low[0], s.series.close[0]]).toEqual([
      10, 11, 9, 10.5,
    ]);
  });
});
