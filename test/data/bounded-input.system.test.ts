import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DataError } from "../../src/data/data-error.js";
import { loadCsv, MAX_LINE_BYTES } from "../../src/data/load-csv.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-bounded-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const HEADER = "Date,Open,High,Low,Close,Volume";
const ROW2 = "2020-01-01,10,11,9,10.5,100";

function dataError(f: () => unknown): DataError {
  let caught: unknown;
  try {
    f();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(DataError);
  expect((caught as DataError).exitCode).toBe(2);
  return caught as DataError;
}

describe("line length is bounded", () => {
  it("a line longer than 1 MiB is an error naming its line, whatever follows", () => {
    const file = path.join(dir, "long-line.csv");
    fs.writeFileSync(
      file,
      `${HEADER}\n${ROW2}\n2020-01-02,${"1".repeat(MAX_LINE_BYTES + 10)}\n${ROW2}\n`,
    );
    const e = dataError(() => loadCsv(file));
    expect(MAX_LINE_BYTES).toBe(1_048_576);
    expect(e.file).toBe(file);
    expect(e.line).toBe(3);
    expect(e.message).toContain(`${file}:3: the line is longer than 1,048,576 bytes (the limit)`);
  });

  it("a file without any line break is stopped at its first line", () => {
    const file = path.join(dir, "zeros.csv");
    fs.writeFileSync(file, Buffer.alloc(3 * MAX_LINE_BYTES));
    const e = dataError(() => loadCsv(file));
    expect(e.line).toBe(1);
    expect(e.message).toContain("longer than 1,048,576 bytes");
  });

  it("a line of exactly 1 MiB is still read (the bound is on longer lines)", () => {
    const file = path.join(dir, "exact.csv");
    const start = "2020-01-02,10,11,9,10.5,200,";
    const note = "x".repeat(MAX_LINE_BYTES - start.length);
    expect(`${start}${note}`.length).toBe(MAX_LINE_BYTES);
    fs.writeFileSync(file, `${HEADER},Note\n${ROW2},a\n${start}${note}\n`);
    expect(loadCsv(file).rows).toBe(2);
  });

  it("CR-only line breaks are line breaks, not one long line", () => {
    const file = path.join(dir, "cr.csv");
    const rows = Array.from({ length: 40_000 }, (_, i) => {
      const d = new Date(Date.UTC(2000, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
      return `${d},10,11,9,10.5,100`;
    });
    fs.writeFileSync(file, `${HEADER}\r${rows.join("\r")}\r`);
    expect(fs.statSync(file).size).toBeGreaterThan(MAX_LINE_BYTES);
    expect(loadCsv(file).rows).toBe(40_000);
  });
});

describe("only regular files are read", () => {
  it("a FIFO is refused at once, without waiting for a writer", () => {
    const fifo = path.join(dir, "bars.fifo");
    execFileSync("mkfifo", [fifo]);
    const e = dataError(() => loadCsv(fifo));
    expect(e.message).toBe(
      `${fifo}: it is a FIFO (named pipe); only regular files are read. Save the bars to a file first and pass that file.`,
    );
  });

  it("a character device is refused (/dev/zero would otherwise be read forever)", () => {
    const e = dataError(() => loadCsv("/dev/zero"));
    expect(e.message).toContain("/dev/zero: it is a character device; only regular files are read");
  });

  it("a symlink to /dev/zero is refused: the opened file is checked, not the link", () => {
    const link = path.join(dir, "zero.csv");
    fs.symlinkSync("/dev/zero", link);
    const e = dataError(() => loadCsv(link));
    expect(e.message).toContain(`${link}: it is a character device`);
  });

  it("a symlink to a regular file given by the user is followed", () => {
    const target = path.join(dir, "real.csv");
    fs.writeFileSync(target, `${HEADER}\n${ROW2}\n`);
    const link = path.join(dir, "link.csv");
    fs.symlinkSync(target, link);
    const loaded = loadCsv(link);
    expect(loaded.rows).toBe(1);
    expect(loaded.series.close[0]).toBe(10.5);
  });

  it("a directory is refused", () => {
    const e = dataError(() => loadCsv(dir));
    expect(e.message).toContain(`${dir}: `);
    expect(e.message).toMatch(/directory/);
  });
});

describe("bars are held as typed columns", () => {
  it("every column is a typed array of exactly the row count", () => {
    const file = path.join(dir, "typed.csv");
    fs.writeFileSync(file, `${HEADER}\n${ROW2}\n2020-01-02,10.5,12,10,11,200\n`);
    const { series } = loadCsv(file);
    for (const column of [series.time, series.open, series.high, series.low, series.close]) {
      expect(column).toBeInstanceOf(Float64Array);
      expect(column.length).toBe(2);
    }
    expect(Array.from(series.volume)).toEqual([100, 200]);
  });
});

describe("pieces of the file", () => {
  it("multi-byte characters and quoted line breaks across 256 KiB pieces keep every row and line", () => {
    const rows = ["Date,Open,High,Low,Close,Volume,Note"];
    for (let i = 0; i < 20_000; i++) {
      const d = new Date(Date.UTC(2000, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
      // "é" is two bytes, "€" three: some fall on a piece boundary.
      const note = i % 7 === 0 ? `"multi\nline ${i}"` : `é€${i}`;
      rows.push(`${d},10,13,9,${10 + (i % 3)},${i},${note}`);
    }
    const file = path.join(dir, "pieces.csv");
    fs.writeFileSync(file, `${rows.join("\n")}\n`);
    expect(fs.statSync(file).size).toBeGreaterThan(2 * 262_144);
    const { series } = loadCsv(file);
    expect(series.length).toBe(20_000);
    expect(series.volume[19_999]).toBe(19_999);
    expect(series.close[5]).toBe(12);
  });
});
