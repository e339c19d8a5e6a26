import { describe, expect, it } from "vitest";
import { computeTradeStats } from "../../src/metrics/trade-stats.js";
import { DAY, trade } from "./fixtures.js";

describe("computeTradeStats", () => {
  it("computes every statistic of a mixed set of trades", () => {
    const stats = computeTradeStats([
      trade({ returnPct: 0.1, pnl: 100, entryTime: 0, exitTime: 1 * DAY }),
      trade({ returnPct: -0.05, pnl: -50, entryTime: 0, exitTime: 2 * DAY }),
      trade({ returnPct: 0.2, pnl: 200, entryTime: 0, exitTime: 3 * DAY }),
      trade({ returnPct: -0.1, pnl: -100, entryTime: 0, exitTime: 6 * DAY }),
    ]);
    expect(stats.trades).toBe(4);
    expect(stats.winRatePct).toBe(50); // 2 of 4 with pnl > 0
    expect(stats.bestTradePct).toBeCloseTo(20, 12);
    expect(stats.worstTradePct).toBeCloseTo(-10, 12);
    // Geometric mean: (1.1 · 0.95 · 1.2 · 0.9)^(1/4) − 1 = 1.1286^0.25 − 1 = 3.0706 %.
    expect(stats.avgTradePct).toBeCloseTo((1.1286 ** 0.25 - 1) * 100, 10);
    expect(stats.avgTradePct).toBeCloseTo(3.0706, 3);
    expect(stats.maxTradeDurationDays).toBe(6);
    expect(stats.avgTradeDurationDays).toBe(3); // (1 + 2 + 3 + 6) / 4
    // Profit factor on returns: (0.10 + 0.20) / (0.05 + 0.10) = 2.
    expect(stats.profitFactor).toBeCloseTo(2, 12);
    // Expectancy: (0.10 − 0.05 + 0.20 − 0.10) / 4 = 0.0375 → 3.75 %.
    expect(stats.expectancyPct).toBeCloseTo(3.75, 12);
    // SQN: mean pnl 37.5; squared deviations 62.5², 87.5², 162.5², 137.5² sum to 56 875;
    // sd = √(56 875 / 3) = 137.689…; √4 · 37.5 / 137.689 = 0.54470.
    expect(stats.sqn).toBeCloseTo((2 * 37.5) / Math.sqrt(56_875 / 3), 12);
    expect(stats.sqn).toBeCloseTo(0.5447, 4);
    // Kelly: W = 0.5, avg win 150, avg loss 75, R = 2 → 0.5 − 0.5 / 2 = 0.25.
    expect(stats.kellyCriterion).toBeCloseTo(0.25, 12);
  });

  it("leaves profit factor and Kelly undefined when every trade wins", () => {
    const stats = computeTradeStats([
      trade({ returnPct: 0.1, pnl: 10 }),
      trade({ returnPct: 0.2, pnl: 20 }),
    ]);
    expect(stats.winRatePct).toBe(100);
    expect(stats.profitFactor).toEqual({
      reason: "no losing trades: gross loss is 0, so the ratio is undefined",
    });
    expect(stats.kellyCriterion).toEqual({
      reason: "no losing trades: the win/loss ratio is undefined",
    });
    // SQN: mean 15, sd √((5² + 5²) / 1) = 7.0711; √2 · 15 / 7.0711 = 3.
    expect(stats.sqn).toBeCloseTo(3, 12);
  });

  it("handles a single trade: its return is best, worst and average; SQN needs two", () => {
    const stats = computeTradeStats([
      trade({ returnPct: 0.05, pnl: 50, entryTime: 0, exitTime: 36 * 3_600_000 }),
    ]);
    expect(stats.trades).toBe(1);
    expect(stats.winRatePct).toBe(100);
    expect(stats.bestTradePct).toBeCloseTo(5, 12);
    expect(stats.worstTradePct).toBeCloseTo(5, 12);
    expect(stats.avgTradePct).toBeCloseTo(5, 12);
    expect(stats.expectancyPct).toBeCloseTo(5, 12);
    expect(stats.maxTradeDurationDays).toBe(1.5); // 36 h
    expect(stats.sqn).toEqual({
      reason: "needs at least 2 closed trades for a standard deviation",
    });
  });

  it("counts a break-even trade as not winning and leaves Kelly undefined without winners", () => {
    const stats = computeTradeStats([
      trade({ returnPct: 0, pnl: 0 }),
      trade({ returnPct: -0.02, pnl: -20 }),
    ]);
    expect(stats.winRatePct).toBe(0);
    expect(stats.profitFactor).toBe(0); // 0 / 0.02
    expect(stats.kellyCriterion).toEqual({
      reason: "no winning trades: the win/loss ratio is undefined",
    });
  });

  it("leaves the geometric average undefined when a trade lost 100 % or more", () => {
    const stats = computeTradeStats([
      trade({ returnPct: -1.2, pnl: -120 }),
      trade({ returnPct: 0.1, pnl: 10 }),
    ]);
    expect(stats.avgTradePct).toHaveProperty("reason");
    // Arithmetic expectancy is still defined: (−1.2 + 0.1) / 2 = −0.55 → −55 %.
    expect(stats.expectancyPct).toBeCloseTo(-55, 12);
  });

  it("marks every statistic as undefined without trades", () => {
    const stats = computeTradeStats([]);
    expect(stats.trades).toBe(0);
    expect(stats.winRatePct).toEqual({ reason: "no closed trades" });
    expect(stats.profitFactor).toEqual({ reason: "no closed trades" });
  });
});
