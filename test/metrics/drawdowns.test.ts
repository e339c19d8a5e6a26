import { describe, expect, it } from "vitest";
import { computeDrawdowns } from "../../src/metrics/drawdowns.js";
import { everyDay } from "./fixtures.js";

describe("computeDrawdowns", () => {
  it("finds each fall below a peak, its depth and its peak-to-recovery duration", () => {
    const equity = Float64Array.of(100, 110, 99, 88, 110, 121, 108.9, 121, 130);
    const dd = computeDrawdowns(everyDay("2024-01-01T00:00:00", equity.length), equity);
    // Peak 110 on day 1, trough 88 (1 − 88/110 = 20 %), back at 110 on day 4: 3 days.
    // Peak 121 on day 5, trough 108.9 (1 − 108.9/121 = 10 %), back at 121 on day 7: 2 days.
    expect(dd.max).toBeCloseTo(0.2, 12);
    expect(dd.periods.map((p) => [p.startIndex, p.endIndex, p.durationDays])).toEqual([
      [1, 4, 3],
      [5, 7, 2],
    ]);
    expect(dd.periods[0]?.depth).toBeCloseTo(0.2, 12);
    expect(dd.periods[1]?.depth).toBeCloseTo(0.1, 12);
  });

  it("ends a drawdown still open at the last bar there, even a one-bar dip", () => {
    const equity = Float64Array.of(100, 120, 90);
    const dd = computeDrawdowns(everyDay("2024-01-01T00:00:00", 3), equity);
    // Peak 120 on day 1, 90 on day 2: 1 − 90/120 = 25 %, 1 day so far.
    expect(dd.periods).toHaveLength(1);
    expect(dd.periods[0]?.durationDays).toBe(1);
    expect(dd.periods[0]?.depth).toBeCloseTo(0.25, 12);
    expect(dd.max).toBeCloseTo(0.25, 12);
  });

  it("reports no period for a curve that never falls", () => {
    const equity = Float64Array.of(100, 100, 101, 105);
    const dd = computeDrawdowns(everyDay("2024-01-01T00:00:00", 4), equity);
    expect(dd.max).toBe(0);
    expect(dd.periods).toEqual([]);
  });
});
