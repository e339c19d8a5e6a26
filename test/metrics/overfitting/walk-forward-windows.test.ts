import { describe, expect, it } from "vitest";
import {
  parseWalkForward,
  WalkForwardDataError,
  WalkForwardSpecError,
  walkForwardWindows,
} from "../../../src/metrics/overfitting/walk-forward-windows.js";
import { everyDay, utc, weekdays } from "../fixtures.js";

const bars = (n: number) => Float64Array.from({ length: n }, (_, i) => i * 60_000);
const asTuples = (ws: ReturnType<typeof walkForwardWindows>) =>
  ws.map((w) => [w.trainFrom, w.trainTo, w.testFrom, w.testTo]);
const dayOf = (times: Float64Array, i: number) => new Date(times[i]!).toISOString().slice(0, 10);

describe("walkForwardWindows in bars (docs example 6)", () => {
  it("rolls a 4-bar training span forward by the 3-bar test span", () => {
    const ws = walkForwardWindows(bars(10), {
      train: { bars: 4 },
      test: { bars: 3 },
      anchored: false,
    });
    expect(asTuples(ws)).toEqual([
      [0, 3, 4, 6],
      [3, 6, 7, 9],
    ]);
  });

  it("keeps training from the first bar when anchored", () => {
    const ws = walkForwardWindows(bars(10), {
      train: { bars: 4 },
      test: { bars: 3 },
      anchored: true,
    });
    expect(asTuples(ws)).toEqual([
      [0, 3, 4, 6],
      [0, 6, 7, 9],
    ]);
  });

  it("ends the last test window at the last bar, shorter if the data ends first", () => {
    const ws = walkForwardWindows(bars(11), {
      train: { bars: 4 },
      test: { bars: 3 },
      anchored: false,
    });
    expect(asTuples(ws).at(-1)).toEqual([6, 9, 10, 10]);
    // The test windows tile the bars after the first training span, each bar once.
    expect(ws.flatMap((w) => [w.testFrom, w.testTo])).toEqual([4, 6, 7, 9, 10, 10]);
  });

  it("says how to fix a training span longer than the data", () => {
    const spec = { train: { bars: 500 }, test: { bars: 100 }, anchored: false };
    expect(() => walkForwardWindows(bars(500), spec)).toThrow(WalkForwardDataError);
    expect(() => walkForwardWindows(bars(300), spec)).toThrow(
      "Walk-forward train=500,test=100 leaves no test bar in 300 bars: the training span covers " +
        "the whole data. Shorten the training span or give more data.",
    );
    expect(() => walkForwardWindows([], spec)).toThrow(WalkForwardDataError);
  });
});

describe("walkForwardWindows in calendar durations (docs example 7)", () => {
  const year = everyDay("2023-01-01T00:00:00", 365);

  it("trains on 6 months and tests on the next 3, by the calendar", () => {
    const ws = walkForwardWindows(year, {
      train: { months: 6 },
      test: { months: 3 },
      anchored: false,
    });
    // Jan 1–Jun 30 (181 days) | Jul 1–Sep 30; then Apr 1–Sep 30 | Oct 1–Dec 31.
    expect(asTuples(ws)).toEqual([
      [0, 180, 181, 272],
      [90, 272, 273, 364],
    ]);
    expect(ws.map((w) => [w.trainFrom, w.testFrom, w.testTo].map((i) => dayOf(year, i)))).toEqual([
      ["2023-01-01", "2023-07-01", "2023-09-30"],
      ["2023-04-01", "2023-10-01", "2023-12-31"],
    ]);
  });

  it("counts months from the first bar, so windows keep to month ends", () => {
    const days = everyDay("2024-01-31T00:00:00", 100);
    const ws = walkForwardWindows(days, {
      train: { months: 1 },
      test: { months: 1 },
      anchored: false,
    });
    // Jan 31 + 1, 2, 3 months: Feb 29 (leap year), Mar 31, Apr 30; no drift to the 29th.
    expect(ws.map((w) => dayOf(days, w.testFrom))).toEqual([
      "2024-02-29",
      "2024-03-31",
      "2024-04-30",
    ]);
    expect(ws.map((w) => dayOf(days, w.trainFrom))).toEqual([
      "2024-01-31",
      "2024-02-29",
      "2024-03-31",
    ]);
  });

  it("takes years as 12 months and days as 24 hours, on weekday data with gaps", () => {
    const days = weekdays("2020-01-01T00:00:00", 800);
    const ws = walkForwardWindows(days, {
      train: { years: 1 },
      test: { days: 30 },
      anchored: true,
    });
    // First test bar: the first weekday on or after 2021-01-01; then every 30 calendar days.
    expect(dayOf(days, ws[0]!.testFrom)).toBe("2021-01-01");
    expect(dayOf(days, ws[1]!.testFrom)).toBe("2021-02-01"); // Jan 31 is a Sunday
    for (const w of ws) {
      expect(w.trainFrom).toBe(0);
      expect(w.trainTo).toBe(w.testFrom - 1);
    }
    expect(ws.at(-1)!.testTo).toBe(days.length - 1);
    for (let k = 1; k < ws.length; k++) expect(ws[k]!.testFrom).toBe(ws[k - 1]!.testTo + 1);
  });

  it("mixes bars and durations: 20 bars of training, a month of test", () => {
    const days = everyDay("2024-03-01T00:00:00", 80);
    const ws = walkForwardWindows(days, {
      train: { bars: 20 },
      test: { months: 1 },
      anchored: false,
    });
    // Test windows start at bar 20 (Mar 21), then Apr 21 and May 21 (indices 51 and 81 > 79).
    expect(asTuples(ws)).toEqual([
      [0, 19, 20, 50],
      [31, 50, 51, 79],
    ]);
    const monthTrain = walkForwardWindows(days, {
      train: { months: 1 },
      test: { bars: 30 },
      anchored: false,
    });
    // Test from Apr 1 (index 31) in 30-bar steps; training is the month before each test start.
    expect(monthTrain.map((w) => [dayOf(days, w.trainFrom), dayOf(days, w.testFrom)])).toEqual([
      ["2024-03-01", "2024-04-01"],
      ["2024-04-01", "2024-05-01"],
    ]);
  });

  it("leaves out a test window that falls in a gap of the data", () => {
    const times = Float64Array.from([
      ...everyDay("2024-01-01T00:00:00", 10),
      ...everyDay("2024-02-20T00:00:00", 10),
    ]);
    const ws = walkForwardWindows(times, { train: { days: 5 }, test: { days: 5 }, anchored: true });
    const starts = ws.map((w) => dayOf(times, w.testFrom));
    // Test windows from Jan 6 every 5 days; those between Jan 11 and Feb 19 hold no bar.
    expect(starts.slice(0, 2)).toEqual(["2024-01-06", "2024-02-20"]);
    expect(ws.every((w) => w.testTo >= w.testFrom)).toBe(true);
  });

  it("checks the spans it is given", () => {
    const times = bars(10);
    for (const train of [{ bars: 0 }, { bars: 2.5 }, { months: -1 }, { days: Number.NaN }])
      expect(() =>
        walkForwardWindows(times, { train, test: { bars: 1 }, anchored: false }),
      ).toThrow(WalkForwardSpecError);
  });
});

describe("parseWalkForward", () => {
  it("reads bars, durations and anchored, in any order", () => {
    expect(parseWalkForward("train=500,test=100")).toEqual({
      train: { bars: 500 },
      test: { bars: 100 },
      anchored: false,
    });
    expect(parseWalkForward("test=6m, train=2y, anchored")).toEqual({
      train: { years: 2 },
      test: { months: 6 },
      anchored: true,
    });
    expect(parseWalkForward("train=30d,test=1d")).toEqual({
      train: { days: 30 },
      test: { days: 1 },
      anchored: false,
    });
  });

  it.each([
    ["", /an empty part/],
    ["train=500", /test is missing/],
    ["test=5", /train is missing/],
    ["train=5,test=5,train=6", /train is given twice/],
    ["train=5,test=5,anchored,anchored", /"anchored" is given twice/],
    ["train=5,test=5,rolling", /"rolling" is not train=…, test=… or anchored/],
    ["train,test=5", /train has no value/],
    ["train=,test=5", /train has no value/],
    ["train=5,test=5,", /an empty part/],
    ["train=1.5y,test=1m", /train=1.5y: the count must be a whole number \(write 18m, not 1.5y\)/],
    ["train=2w,test=1m", /"w" is not a unit; use y \(years\), m \(months\), d \(days\)/],
    ["train=0,test=5", /train=0: bars must be from 1 to 1,000,000,000, got 0/],
    ["train=-3m,test=5", /train=-3m: months must be from 1 to 12,000, got -3/],
    ["train=1001y,test=5", /years must be from 1 to 1,000, got 1001/],
    ["train=99999999999999999999,test=5", /bars must be from 1 to 1,000,000,000/],
    ["train=1e3,test=5", /write the count in plain digits \(1000\)/],
    ["train=Infinity,test=5", /train=Infinity is not a number of bars or a duration/],
    ["train=abc,test=5", /is not a number of bars or a duration/],
  ])("refuses %j and says how to write it", (text, why) => {
    let error: unknown;
    try {
      parseWalkForward(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WalkForwardSpecError);
    expect((error as WalkForwardSpecError).exitCode).toBe(2);
    const message = (error as Error).message;
    expect(message).toMatch(why);
    expect(message).toContain(`Walk-forward "${text}": `);
    expect(message).toMatch(/Write train=<n>,test=<n>\[,anchored\], n a number of bars \(500\)/);
  });
});

it("utc fixture agrees with the calendar used here", () => {
  expect(utc("2024-02-29T00:00:00")).toBe(Date.UTC(2024, 1, 29));
});
