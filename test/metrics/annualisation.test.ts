import { describe, expect, it } from "vitest";
import {
  detectAnnualisation,
  medianSpacingDays,
  weekendShare,
  yearsBetween,
} from "../../src/metrics/annualisation.js";
import { DAY, everyDay, HOUR, utc, weekdays } from "./fixtures.js";

describe("detectAnnualisation", () => {
  it("uses 252 days a year for daily weekday bars", () => {
    // 2024-01-01 is a Monday; 20 weekdays span four weeks, no weekend day.
    expect(detectAnnualisation(weekdays("2024-01-01T00:00:00", 20))).toEqual({
      periodsPerYear: 252,
      sampling: "day",
    });
  });

  it("uses 365 when weekends trade (2 of every 7 days)", () => {
    // 28 consecutive days: 8 weekend days / 28 = 0.286 > 0.6 · 2/7 = 0.171.
    expect(detectAnnualisation(everyDay("2024-01-01T00:00:00", 28))).toEqual({
      periodsPerYear: 365,
      sampling: "day",
    });
  });

  it("tolerates a stray weekend bar in an equity feed", () => {
    // 20 weekdays + one Saturday: 1 / 21 = 0.048 < 0.171, still 252.
    const times = Float64Array.from(
      [...weekdays("2024-01-01T00:00:00", 20), utc("2024-01-06T00:00:00")].sort((a, b) => a - b),
    );
    expect(weekendShare(times)).toBeCloseTo(1 / 21, 12);
    expect(detectAnnualisation(times)?.periodsPerYear).toBe(252);
  });

  it("uses 52 for weekly bars, one period per bar", () => {
    const start = utc("2024-01-05T00:00:00");
    const times = Float64Array.from({ length: 10 }, (_, i) => start + i * 7 * DAY);
    expect(detectAnnualisation(times)).toEqual({ periodsPerYear: 52, sampling: "bar" });
  });

  it("uses 12 for monthly bars of uneven length (28–31 days)", () => {
    const times = Float64Array.from({ length: 12 }, (_, m) => Date.UTC(2023, m, 1));
    // Gaps 31,28,31,30,31,30,31,31,30,31,30: sorted, the 6th of 11 is 31.
    expect(medianSpacingDays(times)).toBe(31);
    expect(detectAnnualisation(times)).toEqual({ periodsPerYear: 12, sampling: "bar" });
  });

  it("takes the median of an even number of gaps as the mean of the two middle ones", () => {
    // Gaps 1, 3, 2, 10, 2, 5 days (six): sorted 1 2 2 3 5 10, middle (2 + 3) / 2.
    const days = [0, 1, 4, 6, 16, 18, 23];
    const times = Float64Array.from(days, (d) => d * DAY);
    expect(medianSpacingDays(times)).toBe(2.5);
    // Seven gaps: the fourth of 1 1 2 2 3 5 10 is 2.
    const odd = Float64Array.from([...days, 24], (d) => d * DAY);
    expect(medianSpacingDays(odd)).toBe(2);
  });

  it("gives the median of the sorted gaps whether it counts a few distinct gaps or sorts thousands", () => {
    // The definition, written plainly: every gap in days, sorted, the middle one or two.
    const reference = (t: Float64Array) => {
      const gaps = Array.from({ length: t.length - 1 }, (_, i) => (t[i + 1]! - t[i]!) / DAY);
      gaps.sort((a, b) => a - b);
      const m = gaps.length >> 1;
      return gaps.length % 2 === 1 ? gaps[m]! : (gaps[m - 1]! + gaps[m]!) / 2;
    };
    let seed = 11;
    const rand = (k: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % k;
    };
    const series = (n: number, gap: () => number) => {
      const t = new Float64Array(n);
      for (let i = 1; i < n; i++) t[i] = t[i - 1]! + gap();
      return t;
    };
    // Minute bars with nights and weekends (a few distinct gaps, counted), odd and even counts.
    const minute = 60_000;
    for (const n of [20_001, 20_002]) {
      const t = series(n, () => [minute, minute, minute, 17 * HOUR, 65 * HOUR][rand(5)]!);
      expect(medianSpacingDays(t)).toBe(reference(t));
    }
    // Ties across the middle: half one gap, half another.
    const halves = series(11, () => 0);
    for (let i = 1; i < 11; i++) halves[i] = halves[i - 1]! + (i <= 5 ? DAY : 3 * DAY);
    expect(medianSpacingDays(halves)).toBe(2);
    // Irregular gaps, more distinct ones than are counted: the array of every gap decides.
    for (const n of [9_001, 9_002]) {
      const t = series(n, () => 1 + rand(1_000_000));
      expect(medianSpacingDays(t)).toBe(reference(t));
    }
  });

  it("resamples hourly weekday bars to days and uses 252", () => {
    // Mon–Wed, bars at 10:00…15:00: median gap 1 h = 1/24 day.
    const times = Float64Array.from(
      [0, 1, 2].flatMap((d) =>
        [10, 11, 12, 13, 14, 15].map((h) => utc("2024-01-01T00:00:00") + d * DAY + h * HOUR),
      ),
    );
    expect(medianSpacingDays(times)).toBeCloseTo(1 / 24, 12);
    expect(detectAnnualisation(times)).toEqual({ periodsPerYear: 252, sampling: "day" });
  });

  it("counts weekend share per distinct day for intraday data (crypto hourly → 365)", () => {
    // 7 days × 24 hourly bars from Monday: 2 of 7 distinct days are weekend days.
    const start = utc("2024-01-01T00:00:00");
    const times = Float64Array.from({ length: 7 * 24 }, (_, i) => start + i * HOUR);
    expect(weekendShare(times)).toBeCloseTo(2 / 7, 12);
    expect(detectAnnualisation(times)?.periodsPerYear).toBe(365);
  });

  it("cannot annualise fewer than two bars", () => {
    expect(detectAnnualisation(Float64Array.of(utc("2024-01-01T00:00:00")))).toBeNull();
  });
});

describe("yearsBetween", () => {
  it("counts calendar years, so a span with a leap day is still exactly 2", () => {
    expect(yearsBetween(utc("2020-01-01T00:00:00"), utc("2022-01-01T00:00:00"))).toBe(2);
  });

  it("takes the remainder as a share of the following year", () => {
    // 2021-01-01 → 2021-07-02 is 182 days of a 365-day year.
    expect(yearsBetween(utc("2021-01-01T00:00:00"), utc("2021-07-02T00:00:00"))).toBeCloseTo(
      182 / 365,
      12,
    );
    // 2019-03-01 → 2020-09-01: 1 whole year to 2020-03-01, then 184 of the 365 days to 2021-03-01.
    expect(yearsBetween(utc("2019-03-01T00:00:00"), utc("2020-09-01T00:00:00"))).toBeCloseTo(
      1 + 184 / 365,
      12,
    );
  });
});
