import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadCsv } from "../../src/data/load-csv.js";

const dataDir = fileURLToPath(new URL("../../data/", import.meta.url));

interface Expected {
  file: string;
  symbol: string;
  rows: number;
  first: string;
  last: string;
  /** Open, high, low, close, volume of the first row, as written in the file. */
  bar: [number, number, number, number, number];
}

// First rows copied from the files (`head -2`); first/last dates from data/SOURCES.md.
const samples: Expected[] = [
  {
    file: "GOOG.csv",
    symbol: "GOOG",
    rows: 2148,
    first: "2004-08-19T00:00:00Z",
    last: "2013-03-01T00:00:00Z",
    bar: [100, 104.06, 95.96, 100.34, 22351900],
  },
  {
    file: "EURUSD.csv",
    symbol: "EURUSD",
    rows: 5000,
    first: "2017-04-19T09:00:00Z",
    last: "2018-02-07T15:00:00Z",
    bar: [1.0716, 1.0722, 1.07083, 1.07219, 1413],
  },
  {
    file: "BTCUSD.csv",
    symbol: "BTCUSD",
    rows: 156,
    first: "2012-01-31T00:00:00Z",
    last: "2024-12-31T00:00:00Z",
    bar: [4.58, 7.38, 3.8, 5.55, 2012.25343589],
  },
  {
    file: "orcl-1995-2014.txt",
    symbol: "ORCL",
    rows: 5036,
    first: "1995-01-03T00:00:00Z",
    last: "2014-12-31T00:00:00Z",
    // Close, not Adj Close (1.883304)
    bar: [2.179012, 2.191358, 2.117284, 2.117284, 36301200],
  },
  {
    file: "yhoo-1996-2014.txt",
    symbol: "YHOO",
    rows: 4713,
    first: "1996-04-12T00:00:00Z",
    last: "2014-12-31T00:00:00Z",
    bar: [1.052083, 1.791667, 1.020833, 1.375, 408720000],
  },
  {
    file: "nvda-1999-2014.txt",
    symbol: "NVDA",
    rows: 4012,
    first: "1999-01-22T00:00:00Z",
    last: "2014-12-31T00:00:00Z",
    bar: [1.75, 1.953125, 1.552083, 1.640625, 67867200],
  },
  {
    file: "2006-day-001.txt",
    symbol: "2006",
    rows: 255,
    first: "2006-01-02T00:00:00Z",
    last: "2006-12-29T00:00:00Z",
    bar: [3578.73, 3605.95, 3578.73, 3604.33, 0],
  },
  {
    file: "SPY_D.csv",
    symbol: "SPY",
    rows: 5241,
    first: "1999-11-01T00:00:00Z",
    last: "2020-08-28T00:00:00Z",
    bar: [136.5, 137, 135.5625, 135.5625, 4006500],
  },
];

describe("the sample files in data/", () => {
  it.each(samples)("$file loads $rows bars", (s) => {
    const { series, rows, warnings } = loadCsv(path.join(dataDir, s.file));
    expect(rows).toBe(s.rows);
    expect(series.length).toBe(s.rows);
    expect(series.symbol).toBe(s.symbol);
    expect(series.time[0]).toBe(Date.parse(s.first));
    expect(series.time[s.rows - 1]).toBe(Date.parse(s.last));
    expect([
      series.open[0],
      series.high[0],
      series.low[0],
      series.close[0],
      series.volume[0],
    ]).toEqual(s.bar);
    for (const column of [series.time, series.open, series.volume]) {
      expect(column.length).toBe(s.rows);
    }
    expect(warnings).toEqual([]);
  });

  it("hashes the bytes (checksums from data/SOURCES.md)", () => {
    expect(loadCsv(path.join(dataDir, "GOOG.csv")).sha256).toBe(
      "60e961a567490b157f71888df9e6afb36190a34a40a6286aa38988e2343f1b1a",
    );
    expect(loadCsv(path.join(dataDir, "SPY_D.csv")).sha256).toBe(
      "87c91dd3fb860972fdfbda97ed38ff9b92d6ddec03e571788e2341e61a7f3717",
    );
  });

  it("reads SPY_D's last row although the file has no trailing newline", () => {
    const { series } = loadCsv(path.join(dataDir, "SPY_D.csv"));
    // 5240,2020-08-28,349.44,350.72,348.15,350.58,48588940.0
    expect(series.close[5240]).toBe(350.58);
    expect(series.volume[5240]).toBe(48588940);
  });
});
