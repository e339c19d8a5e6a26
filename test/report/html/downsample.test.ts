import { describe, expect, it } from "vitest";
import { curveSeries, LINE_POINTS } from "../../../src/report/html/curve-series.js";
import { aggregateCandles, floorIndex, minMaxLine } from "../../../src/report/html/downsample.js";

const DAY = 86_400_000;
const days = (n: number) => Array.from({ length: n }, (_, i) => i * DAY);

describe("minMaxLine", () => {
  it("keeps every point when they fit, in seconds", () => {
    expect(minMaxLine([0, DAY, 2 * DAY], [1, 2, 3], 10)).toEqual({
      t: [0, 86_400, 172_800],
      v: [1, 2, 3],
    });
  });

  it("keeps each bucket's low and high in time order, and the first and last points", () => {
    // 10 points, budget 6: first, last, and 2 buckets of 4 inner points (indexes 1-4, 5-8).
    const v = [5, 7, 1, 9, 3, 2, 8, 0, 4, 6];
    const out = minMaxLine(days(10), v, 6);
    // Bucket 1-4: low 1 at 2, high 9 at 3. Bucket 5-8: high 8 at 6, low 0 at 7.
    expect(out.v).toEqual([5, 1, 9, 8, 0, 6]);
    expect(out.t).toEqual([0, 2, 3, 6, 7, 9].map((i) => i * 86_400));
  });

  it("never exceeds the budget on a million points, and keeps the extreme drawdown", () => {
    const n = 1_000_000;
    const v = new Float64Array(n).fill(0);
    v[123_457] = -55.5;
    const out = minMaxLine(days(n), v, 5000);
    expect(out.v.length).toBeLessThanOrEqual(5000);
    expect(Math.min(...out.v)).toBe(-55.5);
    expect(out.t).toContain((123_457 * DAY) / 1000);
  });

  it("leaves out values that are not finite", () => {
    expect(minMaxLine(days(3), [1, Number.NaN, 3], 10).v).toEqual([1, 3]);
  });
});

describe("aggregateCandles", () => {
  it("merges runs of bars: first open and time, highest high, lowest low, last close", () => {
    const s = {
      time: days(5),
      open: [10, 11, 12, 13, 14],
      high: [12, 15, 13, 16, 15],
      low: [9, 10, 8, 12, 13],
      close: [11, 12, 13, 14, 15],
      volume: [100, 200, 300, 400, 500],
    };
    const c = aggregateCandles(s, 0, 5, 2); // 3 bars per candle: [0..2], [3..4]
    expect(c).toEqual({
      t: [0, 259_200],
      o: [10, 13],
      h: [15, 16],
      l: [8, 12],
      c: [13, 15],
      v: [600, 900],
      per: 3,
    });
  });

  it("has no volume column for data without volume", () => {
    const s = { time: days(2), open: [1, 2], high: [1, 2], low: [1, 2], close: [1, 2] };
    expect(aggregateCandles(s, 0, 2, 10).v).toEqual([]);
    expect(aggregateCandles({ ...s, volume: [0, 0] }, 0, 2, 10).v).toEqual([]);
  });

  it("keeps every bar of a window that fits", () => {
    const s = {
      time: days(4),
      open: [1, 2, 3, 4],
      high: [1, 2, 3, 4],
      low: [1, 2, 3, 4],
      close: [1, 2, 3, 4],
    };
    const c = aggregateCandles(s, 1, 3, 10);
    expect(c.per).toBe(1);
    expect(c.o).toEqual([2, 3]);
  });
});

describe("floorIndex", () => {
  it("finds the candle that holds a time", () => {
    expect(floorIndex([10, 20, 30], 25)).toBe(1);
    expect(floorIndex([10, 20, 30], 30)).toBe(2);
    expect(floorIndex([10, 20, 30], 5)).toBe(0);
  });
});

describe("curveSeries", () => {
  it("draws the drawdown as minMaxLine would draw an array of it, without the array", () => {
    let seed = 3;
    const n = 3 * LINE_POINTS + 17;
    const times = Array.from({ length: n }, (_, i) => i * 60_000);
    const equity = new Float64Array(n);
    let e = 100;
    for (let i = 0; i < n; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      e *= 1 + ((seed % 2001) - 1000) / 50_000;
      equity[i] = e;
    }
    // The definition, as equity.csv's drawdown_pct: percent below the running peak.
    let peak = Number.NEGATIVE_INFINITY;
    const dd = Array.from(equity, (v) => {
      peak = Math.max(peak, v);
      return peak > 0 && v < peak ? (v / peak - 1) * 100 : 0;
    });
    const lines = curveSeries({ times, equity, benchmark: equity });
    expect(lines.drawdown).toEqual(minMaxLine(times, dd, LINE_POINTS));
    expect(lines.drawdown.v.length).toBeLessThanOrEqual(LINE_POINTS);
    expect(Math.min(...lines.drawdown.v)).toBeCloseTo(Math.min(...dd), 6);
    expect(lines.equity).toEqual(minMaxLine(times, equity, LINE_POINTS));
    // Short curves keep every point.
    const short = curveSeries({
      times: times.slice(0, 5),
      equity: equity.slice(0, 5),
      benchmark: equity.slice(0, 5),
    });
    expect(short.drawdown).toEqual(minMaxLine(times.slice(0, 5), dd.slice(0, 5), LINE_POINTS));
  });
});
