import { describe, expect, it } from "vitest";
import { calendarFlagsAt } from "../../src/engine/calendar.js";
import { ofType, run, series, utc } from "./helpers.js";

const DAY = 86_400_000;

/** One flat bar per timestamp. */
const bars = (times: readonly (string | number)[]) =>
  series(
    "X",
    times.map((t) => [t, 1, 1, 1, 1, 1] as const),
  );

/** Every day from `from` to `to` (inclusive) whose weekday (0 = Sunday … 6 = Saturday) is kept. */
function days(from: string, to: string, keep: (weekday: number) => boolean = () => true) {
  const out: number[] = [];
  for (let t = utc(from); t <= utc(to); t += DAY) if (keep(new Date(t).getUTCDay())) out.push(t);
  return out;
}
const weekdays = (w: number) => w >= 1 && w <= 5;

/** The calendar events of the last bar, in the order they were emitted. */
function lastBarEvents(times: readonly (string | number)[]) {
  const r = run(bars(times), {}, {});
  const last = times.length - 1;
  return r.events
    .filter(
      (e) =>
        (e.type === "day_end" ||
          e.type === "week_end" ||
          e.type === "month_end" ||
          e.type === "run_end") &&
        e.index === last,
    )
    .map((e) => ("key" in e ? `${e.type} ${e.key}` : e.type));
}

describe("the last bar of the window", () => {
  it("ending on Wednesday 2014-10-15 (weekday data): a day end and run_end, not a week or month end", () => {
    const times = days("2014-10-01", "2014-10-15", weekdays);
    expect(lastBarEvents(times)).toEqual(["day_end 2014-10-15", "run_end"]);
    // Earlier Fridays still end their weeks as before.
    const r = run(bars(times), {}, {});
    expect(ofType(r.events, "week_end").map((e) => e.key)).toEqual(["2014-W40", "2014-W41"]);
    expect(ofType(r.events, "month_end")).toEqual([]);
    expect(ofType(r.events, "run_end").map((e) => e.index)).toEqual([times.length - 1]);
  });

  it("ending on Friday 2014-10-31: a day, week and month end, then run_end", () => {
    const times = days("2014-10-20", "2014-10-31", weekdays);
    expect(lastBarEvents(times)).toEqual([
      "day_end 2014-10-31",
      "week_end 2014-W44",
      "month_end 2014-10",
      "run_end",
    ]);
  });

  it("weekday data: Thursday 2014-10-30 is not a month end (Friday the 31st can trade); Friday 2014-08-29 is (the 30th and 31st are a weekend)", () => {
    expect(lastBarEvents(days("2014-10-20", "2014-10-30", weekdays))).toEqual([
      "day_end 2014-10-30",
      "run_end",
    ]);
    expect(lastBarEvents(days("2014-08-18", "2014-08-29", weekdays))).toEqual([
      "day_end 2014-08-29",
      "week_end 2014-W35",
      "month_end 2014-08",
      "run_end",
    ]);
  });

  it("data that trades on weekends (crypto): Friday 2014-10-31 ends the month, not the week; Sunday 2014-11-02 ends the week", () => {
    expect(lastBarEvents(days("2014-10-18", "2014-10-31"))).toEqual([
      "day_end 2014-10-31",
      "month_end 2014-10",
      "run_end",
    ]);
    expect(lastBarEvents(days("2014-10-18", "2014-11-02"))).toEqual([
      "day_end 2014-11-02",
      "week_end 2014-W44",
      "run_end",
    ]);
    // Saturday 2014-11-01: Sunday can still trade, and November has just begun.
    expect(lastBarEvents(days("2014-10-18", "2014-11-01"))).toEqual([
      "day_end 2014-11-01",
      "run_end",
    ]);
  });

  it("hourly bars ending Wednesday 2014-10-15 at 11:00: the day ends (the data ends), the week and month do not", () => {
    const times = [
      "2014-10-13T10:00",
      "2014-10-13T11:00",
      "2014-10-14T10:00",
      "2014-10-14T11:00",
      "2014-10-15T10:00",
      "2014-10-15T11:00",
    ];
    expect(lastBarEvents(times)).toEqual(["day_end 2014-10-15", "run_end"]);
  });

  it("weekly bars (stamped Mondays) end a week at every bar, the last included", () => {
    const times = ["2014-09-22", "2014-09-29", "2014-10-06", "2014-10-13"];
    const flags = calendarFlagsAt(
      Float64Array.from(times, (t) => utc(t)),
      3,
      { dayEnd: false, weekEnd: false, monthEnd: false },
    );
    // A bar per week: the last is a week end; October 2014 has later Mondays, so not a month end.
    expect({ ...flags }).toEqual({ dayEnd: true, weekEnd: true, monthEnd: false });
  });

  it("monthly bars end a month (and a week) at every bar, the last included", () => {
    const times = ["2014-07-01", "2014-08-01", "2014-09-01", "2014-10-01"];
    const flags = calendarFlagsAt(
      Float64Array.from(times, (t) => utc(t)),
      3,
      { dayEnd: false, weekEnd: false, monthEnd: false },
    );
    expect({ ...flags }).toEqual({ dayEnd: true, weekEnd: true, monthEnd: true });
  });
});
