import { describe, expect, it } from "vitest";
import { alignSeries } from "../../src/engine/align-series.js";
import { calendarFlagsAt, isoWeekKey } from "../../src/engine/calendar.js";
import { ofType, only, run, series, utc } from "./helpers.js";

describe("multi-symbol alignment", () => {
  // A trades Mar 1, 2, 4; B trades Mar 1, 3, 4.
  const A = series("A", [
    ["2021-03-01", 10, 10, 10, 10, 1000],
    ["2021-03-02", 11, 11, 11, 11, 1000],
    ["2021-03-04", 13, 13, 13, 13, 1000],
  ]);
  const B = series("B", [
    ["2021-03-01", 20, 20, 20, 20, 1000],
    ["2021-03-03", 22, 23, 22, 23, 1000],
    ["2021-03-04", 24, 24, 24, 24, 1000],
  ]);

  it("aligns by timestamp: the master timeline is the union, missing bars are -1", () => {
    const d = alignSeries([A, B]);
    expect(Array.from(d.times)).toEqual(
      ["2021-03-01", "2021-03-02", "2021-03-03", "2021-03-04"].map((s) => utc(s)),
    );
    expect(Array.from(d.barIndex[0] ?? [])).toEqual([0, 1, -1, 2]);
    expect(Array.from(d.barIndex[1] ?? [])).toEqual([0, -1, 1, 2]);
  });

  it("an order for a symbol with no bar at t waits for that symbol's next bar", () => {
    const r = run(
      [A, B],
      {},
      {
        0: (b, i) => b.submit({ symbol: "B", side: "buy", size: { kind: "qty", qty: 10 } }, i),
      },
    );
    const f = only(r.fills);
    expect(f.index).toBe(2); // master index 1 (Mar 2) has no B bar
    expect(f.time).toBe(utc("2021-03-03"));
    expect(f.price).toBe(22); // B's open on Mar 3
    expect(r.equity[1]).toBe(10_000); // nothing held yet
    expect(r.equity[2]).toBe(10_010); // 10000 - 220 + 10 × 23
    expect(r.equity[3]).toBe(10_020); // 9780 + 10 × 24
  });

  it("a missing bar keeps the symbol marked at its last close and does not count for TIF bars", () => {
    const r = run(
      [A, B],
      {},
      {
        0: (b, i) => {
          b.submit({ symbol: "B", side: "buy", size: { kind: "qty", qty: 10 } }, i);
          b.submit(
            {
              symbol: "B",
              side: "buy",
              type: "limit",
              limitPrice: 22,
              size: { kind: "qty", qty: 1 },
              tif: { kind: "bars", bars: 1 },
            },
            i,
          );
        },
      },
    );
    // order 1 fills at index 2 (open 22); order 2's single bar is B's next bar (index 2), where
    // low 22 ≤ 22 → fills at 22, instead of expiring on A's Mar 2 bar.
    expect(r.fills.map((f) => [f.orderId, f.index, f.price])).toEqual([
      [1, 2, 22],
      [2, 2, 22],
    ]);
  });

  it("equity holds a symbol at its last close while it has no bar", () => {
    const r = run(
      [A, B],
      { tradeOnClose: true },
      {
        0: (b, i) => b.submit({ symbol: "B", side: "buy", size: { kind: "qty", qty: 10 } }, i),
      },
    );
    // bought 10 B at Mar 1 close 20 → cash 9800
    expect(r.equity).toEqual([
      10_000, // 9800 + 10 × 20
      10_000, // Mar 2: no B bar, still 20
      10_030, // Mar 3: 9800 + 10 × 23
      10_040, // Mar 4: 9800 + 10 × 24
    ]);
  });
});

describe("calendar events", () => {
  const keys = (r: ReturnType<typeof run>, type: "day_end" | "week_end" | "month_end") =>
    ofType(r.events, type).map((e) => [e.index, e.key]);

  it("daily bars across a week and a month boundary", () => {
    // Wed Jan 27, Thu 28, Fri 29, Mon Feb 1, Tue Feb 2 (2021)
    const X = series("X", [
      ["2021-01-27", 1, 1, 1, 1, 1],
      ["2021-01-28", 1, 1, 1, 1, 1],
      ["2021-01-29", 1, 1, 1, 1, 1],
      ["2021-02-01", 1, 1, 1, 1, 1],
      ["2021-02-02", 1, 1, 1, 1, 1],
    ]);
    const r = run(X, {}, {});
    expect(keys(r, "day_end")).toEqual([
      [0, "2021-01-27"],
      [1, "2021-01-28"],
      [2, "2021-01-29"],
      [3, "2021-02-01"],
      [4, "2021-02-02"],
    ]);
    // Jan 25 is the Monday of 2021-W04 (Jan 4 starts W01); Feb 1 starts W05. The last bar, Tuesday
    // Feb 2, ends neither its week nor its month (see test/engine/run-end-calendar.test.ts).
    expect(keys(r, "week_end")).toEqual([[2, "2021-W04"]]);
    expect(keys(r, "month_end")).toEqual([[2, "2021-01"]]);
    expect(ofType(r.events, "run_end").map((e) => e.index)).toEqual([4]);
  });

  it("hourly bars: the day ends at the last hour of each day", () => {
    // Fri Jan 29 14:00-16:00, Mon Feb 1 14:00-15:00
    const X = series("X", [
      ["2021-01-29T14:00", 1, 1, 1, 1, 1],
      ["2021-01-29T15:00", 1, 1, 1, 1, 1],
      ["2021-01-29T16:00", 1, 1, 1, 1, 1],
      ["2021-02-01T14:00", 1, 1, 1, 1, 1],
      ["2021-02-01T15:00", 1, 1, 1, 1, 1],
    ]);
    const r = run(X, {}, {});
    expect(keys(r, "day_end")).toEqual([
      [2, "2021-01-29"],
      [4, "2021-02-01"],
    ]);
    // The data ends on Monday Feb 1: a day end, not a week or month end.
    expect(keys(r, "week_end")).toEqual([[2, "2021-W04"]]);
    expect(keys(r, "month_end")).toEqual([[2, "2021-01"]]);
  });

  it("hourly bars within one week: a day end is not a week or month end", () => {
    // Tue Mar 2 → Wed Mar 3 2021
    const times = Float64Array.from(
      ["2021-03-02T10:00", "2021-03-02T11:00", "2021-03-03T10:00"].map((s) => utc(s)),
    );
    const out = { dayEnd: false, weekEnd: false, monthEnd: false };
    expect({ ...calendarFlagsAt(times, 0, out) }).toEqual({
      dayEnd: false,
      weekEnd: false,
      monthEnd: false,
    });
    expect({ ...calendarFlagsAt(times, 1, out) }).toEqual({
      dayEnd: true,
      weekEnd: false,
      monthEnd: false,
    });
    // The last bar ends its day (the data ends), not Wednesday's week or month.
    expect({ ...calendarFlagsAt(times, 2, out) }).toEqual({
      dayEnd: true,
      weekEnd: false,
      monthEnd: false,
    });
  });

  it("ISO week keys at year boundaries", () => {
    // Sun 2021-01-03: its Thursday is 2020-12-31 → ISO year 2020, day 365 of 2020 → week 365/7+1 = 53
    expect(isoWeekKey(Date.UTC(2021, 0, 3))).toBe("2020-W53");
    expect(isoWeekKey(Date.UTC(2021, 0, 4))).toBe("2021-W01"); // Monday
    // Mon 2024-12-30: its Thursday is 2025-01-02 → 2025-W01
    expect(isoWeekKey(Date.UTC(2024, 11, 30))).toBe("2025-W01");
    expect(isoWeekKey(Date.UTC(2021, 0, 29))).toBe("2021-W04");
  });
});
