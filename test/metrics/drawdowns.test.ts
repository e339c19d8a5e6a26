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
    expect(dd.periods).toBe(2);
    expect(dd.depthSum).toBeCloseTo(0.3, 12);
    expect(dd.longestDays).toBe(3);
    expect(dd.daysSum).toBe(5);
  });

  it("adds the depths in time order, as a mean over a list of them would", () => {
    const equity = Float64Array.of(100, 93, 100, 97.1, 100, 88.3, 100);
    const dd = computeDrawdowns(everyDay("2024-01-01T00:00:00", equity.length), equity);
    const depths = [1 - 93 / 100, 1 - 97.1 / 100, 1 - 88.3 / 100];
    expect(dd.periods).toBe(3);
    expect(dd.depthSum).toBe(depths[0]! + depths[1]! + depths[2]!);
    expect(dd.max).toBe(depths[2]);
  });

  it("ends a drawdown still open at the last bar there, even a one-bar dip", () => {
    const equity = Float64Array.of(100, 120, 90);
    const dd = computeDrawdowns(everyDay("2024-01-01T00:00:00", 3), equity);
    // Peak 120 on day 1, 90 on day 2: 1 − 90/120 = 25 %, 1 day so far.
    expect(dd.periods).toBe(1);
    expect(dd.longestDays).toBe(1);
    expect(dd.depthSum).toBeCloseTo(0.25, 12);
    expect(dd.max).toBeCloseTo(0.25, 12);
  });

  it("reports no period for a curve that never falls", () => {
    const equity = Float64Array.of(100, 100, 101, 105);
    const dd = computeDrawdowns(everyDay("2024-01-01T00:00:00", 4), equity);
    expect(dd).toEqual({ max: 0, periods: 0, depthSum: 0, longestDays: 0, daysSum: 0 });
  });
});
