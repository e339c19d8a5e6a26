import path from "node:path";
import { describe, expect, it } from "vitest";
import { Anonymizer } from "../../../src/agent/anonymize/anonymizer.js";
import { dayKey } from "../../../src/engine/calendar.js";
import { loadData } from "../../../src/runner/load-data.js";
import { DATA } from "../../helpers/cli.js";

const loaded = loadData({
  data: [{ file: path.join(DATA, "GOOG.csv") }],
  from: "2012-01-01",
  to: "2012-03-31",
  strict: false,
  tz: null,
});
const goog = loaded.data;
const start = loaded.startIndex;
const day = (d: string) => Date.parse(`${d}T00:00:00Z`);
const make = (cash = 10_000, step = 1) => new Anonymizer(goog, false, start, cash, step);

describe("Anonymizer", () => {
  it("shows every trading day as the next weekday from Monday 2300-01-01, holidays gone", () => {
    const a = make();
    // 2012-01-03 (Tue, after the New Year holiday) is the window's first day.
    expect(dayKey(a.time(day("2012-01-03")))).toBe("2300-01-01");
    expect(dayKey(a.time(day("2012-01-06")))).toBe("2300-01-04");
    // Martin Luther King day (Monday 2012-01-16) leaves no gap: Friday 13th and Tuesday 17th,
    // the 9th and 10th trading days, are shown as Thursday and Friday.
    expect(dayKey(a.time(day("2012-01-13")))).toBe("2300-01-11");
    expect(dayKey(a.time(day("2012-01-17")))).toBe("2300-01-12");
    // A date off the calendar (the holiday) is shown as the next trading day's.
    expect(dayKey(a.time(day("2012-01-16")))).toBe("2300-01-12");
    // Before the window: the last trading day of 2011 is the weekday before, Friday 2299-12-29.
    expect(dayKey(a.time(day("2011-12-30")))).toBe("2299-12-29");
    expect(a.text("from 2012-01-17 on")).toBe("from 2300-01-12 on");
  });

  it("draws the same factors for the same data, far from every power of ten", () => {
    const [x, y] = [make(), make()];
    expect(x.describe()).toEqual(y.describe());
    for (const f of [x.factor("GOOG"), x.describe().volumeFactors.GOOG as number]) {
      const decade = Math.log10(f) - Math.floor(Math.log10(f));
      expect(decade).toBeGreaterThanOrEqual(0.1);
      expect(decade).toBeLessThanOrEqual(0.9);
    }
    const first = x.price("GOOG", goog.series[0]?.close[start] as number);
    expect(first).toBeGreaterThanOrEqual(20);
    expect(first).toBeLessThan(2000);
  });

  it("shows 100000 for any starting cash, with quantity × price = money", () => {
    const a = make(25_000);
    expect(a.money(25_000)).toBe(100_000);
    const price = 600;
    const shownValue = a.quantity("GOOG", 7) * a.price("GOOG", price);
    // To the 6 significant digits a price is shown with.
    expect(Math.abs(shownValue / a.money(7 * price) - 1)).toBeLessThan(1e-5);
  });

  it("converts a quantity back to the nearest tradable real amount", () => {
    const whole = make();
    expect(whole.realQuantity("GOOG", whole.quantity("GOOG", 7))).toBe(7);
    expect(whole.realQuantity("GOOG", whole.quantity("GOOG", 7.4))).toBe(7);
    expect(whole.realQuantity("GOOG", whole.quantity("GOOG", 0.3))).toBe(0);
    const fractional = make(10_000, 1e-8);
    expect(fractional.realQuantity("GOOG", fractional.quantity("GOOG", 0.12345678))).toBeCloseTo(
      0.12345678,
      10,
    );
  });

  it("scales money in the broker's messages and cuts real units × real prices", () => {
    const a = make();
    expect(
      a.text("insufficient cash: the fill needs 19950.90 and the account has 10000.00", {
        money: true,
      }),
    ).toBe("insufficient cash: the fill needs 199509.00 and the account has 100000.00");
    expect(
      a.text(
        "the fill's amounts are not a finite number (1e+308 units × 665.41 = Infinity, commission 0): use a smaller quantity",
        { money: true },
      ),
    ).toBe("the fill's amounts are not a finite number: use a smaller quantity");
  });
});
