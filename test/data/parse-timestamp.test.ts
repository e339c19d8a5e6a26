import { describe, expect, it } from "vitest";
import {
  isValidTimeZone,
  parseTimestamp,
  timestampProblem,
} from "../../src/data/parse-timestamp.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// 2020-01-01 is 18262 days after 1970-01-01: 50 years * 365 + 12 leap days (1972..2016).
const JAN_1_2020 = 18_262 * DAY;

describe("parseTimestamp formats", () => {
  it("reads a date as midnight of that day, with - or / separators", () => {
    expect(JAN_1_2020).toBe(1_577_836_800_000);
    expect(parseTimestamp("2020-01-02")).toBe(JAN_1_2020 + DAY);
    expect(parseTimestamp("2020/01/02")).toBe(JAN_1_2020 + DAY);
  });

  it("reads the EURUSD hourly format as the wall clock written", () => {
    // 2017-01-01 is day 17167 (47 * 365 + 12 leap days); Apr 19 is 31+28+31+18 = 108 days later;
    // (17167 + 108) * 86_400_000 + 9 h = 1_492_592_400_000.
    expect(parseTimestamp("2017-04-19 09:00:00")).toBe(1_492_592_400_000);
  });

  it("reads minutes, seconds and fractional seconds", () => {
    expect(parseTimestamp("2020-01-01 09:30")).toBe(JAN_1_2020 + 9.5 * HOUR);
    // 9:30:15.250 = 34_215_250 ms after midnight.
    expect(parseTimestamp("2020-01-01T09:30:15.250")).toBe(JAN_1_2020 + 34_215_250);
    expect(parseTimestamp("2020-01-01T00:00:00.5")).toBe(JAN_1_2020 + 500);
    // Digits past milliseconds are truncated, not rounded: .123999 -> 123 ms.
    expect(parseTimestamp("2020-01-01T00:00:00.123999")).toBe(JAN_1_2020 + 123);
  });

  it("ignores an offset suffix without tz (the wall clock as written)", () => {
    expect(parseTimestamp("2020-01-01T12:00:00Z")).toBe(JAN_1_2020 + 12 * HOUR);
    expect(parseTimestamp("2020-01-01T12:00:00+05:30")).toBe(JAN_1_2020 + 12 * HOUR);
    expect(parseTimestamp("2020-01-01 12:00:00-0800")).toBe(JAN_1_2020 + 12 * HOUR);
  });

  it("tolerates surrounding spaces", () => {
    expect(parseTimestamp(" 2020-01-02 ")).toBe(JAN_1_2020 + DAY);
  });

  it("handles leap days and years before 100 (where Date.UTC would remap to 19xx)", () => {
    // 2020-02-29 is 31 + 28 days after Jan 1.
    expect(parseTimestamp("2020-02-29")).toBe(JAN_1_2020 + 59 * DAY);
    expect(parseTimestamp("2000-02-29")).toBe(Date.UTC(2000, 1, 29));
    const year50 = new Date(Date.UTC(2000, 0, 1));
    year50.setUTCFullYear(50);
    expect(parseTimestamp("0050-01-01")).toBe(year50.getTime());
  });
});

describe("parseTimestamp with tz", () => {
  it("converts Z to the zone's wall clock (New York is UTC-5 in winter)", () => {
    expect(parseTimestamp("2020-01-01T12:00:00Z", "America/New_York")).toBe(JAN_1_2020 + 7 * HOUR);
  });

  it("applies daylight saving time (UTC-4 in July)", () => {
    // 2020-07-01 is 182 days after Jan 1 (31+29+31+30+31+30); 12:00Z is 08:00 EDT.
    expect(parseTimestamp("2020-07-01T12:00:00Z", "America/New_York")).toBe(
      JAN_1_2020 + 182 * DAY + 8 * HOUR,
    );
  });

  it("switches offset exactly at the transition instant", () => {
    // 2020-03-08 07:00Z is when New York springs forward: 1:59:59 EST, then 03:00 EDT.
    const march8 = JAN_1_2020 + (31 + 29 + 7) * DAY;
    expect(parseTimestamp("2020-03-08T06:59:59Z", "America/New_York")).toBe(
      march8 + HOUR + 59 * 60_000 + 59_000,
    );
    expect(parseTimestamp("2020-03-08T07:00:00Z", "America/New_York")).toBe(march8 + 3 * HOUR);
  });

  it("converts an explicit offset through the instant it denotes", () => {
    // 12:00+05:30 is 06:30Z, which is 06:30 in UTC and 15:30 in Tokyo (UTC+9).
    expect(parseTimestamp("2020-01-01T12:00:00+05:30", "UTC")).toBe(JAN_1_2020 + 6.5 * HOUR);
    expect(parseTimestamp("2020-01-01T12:00:00+05:30", "Asia/Tokyo")).toBe(
      JAN_1_2020 + 15.5 * HOUR,
    );
  });

  it("takes a timestamp without offset as already in the zone", () => {
    expect(parseTimestamp("2020-01-01 12:00", "America/New_York")).toBe(JAN_1_2020 + 12 * HOUR);
  });

  it("knows valid zone names from invalid ones", () => {
    expect(isValidTimeZone("Europe/London")).toBe(true);
    expect(isValidTimeZone("Mars/Olympus_Mons")).toBe(false);
  });
});

describe("invalid timestamps", () => {
  it.each([
    ["2020-13-01", "month 13 is not between 01 and 12"],
    ["2020-00-10", "month 00 is not between 01 and 12"],
    ["2020-02-30", "day 30 does not exist in 2020-02"],
    ["2021-02-29", "day 29 does not exist in 2021-02"],
    ["1900-02-29", "day 29 does not exist in 1900-02"],
    ["2020-04-31", "day 31 does not exist in 2020-04"],
    ["2020-01-01 24:00", "hour 24 is not between 00 and 23"],
    ["2020-01-01 12:60", "minute 60 is not between 00 and 59"],
    ["2020-01-01 12:00:61", "second 61 is not between 00 and 59"],
    ["2020-01-01T12:00:00+25:00", "the UTC offset is out of range"],
  ])("%s -> NaN because %s", (text, why) => {
    expect(parseTimestamp(text)).toBeNaN();
    expect(timestampProblem(text)).toBe(why);
  });

  it.each([
    "yesterday",
    "",
    "2020-1-01",
    "2020-01-1",
    "20200101",
    "2020-01/01",
    "2020-01-01x",
    "2020-01-01 12:00:00 PM",
    "2020-01-01T12",
    "2020-01-01T12:00:00.",
  ])("%j is not in a recognised format", (text) => {
    expect(parseTimestamp(text)).toBeNaN();
    expect(timestampProblem(text)).toBe("it is not in a recognised date format");
  });

  it.each(["01/02/2020", "1.2.2020", "01-02-2020 09:30"])(
    "%j is day-first or month-first: the problem says they cannot be told apart",
    (text) => {
      expect(parseTimestamp(text)).toBeNaN();
      expect(timestampProblem(text)).toBe(
        "day-first and month-first dates (such as 03/04/2020) cannot be told apart",
      );
    },
  );

  it("reports no problem for a valid timestamp", () => {
    expect(timestampProblem("2020-02-29")).toBe("");
  });
});
