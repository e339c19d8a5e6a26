import { describe, expect, it } from "vitest";
import { rsi } from "../../src/indicators/rsi.js";

// The classic 14-period RSI example series (Wilder / StockCharts).
const closes = [
  44.34, 44.09, 44.15, 43.61, 44.33, 44.83, 45.1, 45.42, 45.84, 46.08, 45.89, 46.03, 45.61, 46.28,
  46.28, 46.0,
];

describe("rsi (Wilder)", () => {
  const out = rsi(Float64Array.from(closes), 14);

  it("is NaN until `period` changes exist", () => {
    for (let i = 0; i < 14; i++) expect(out[i]).toBeNaN();
  });

  it("seeds with the simple mean of the first 14 gains and losses, unrounded", () => {
    // changes 1..14: -0.25 +0.06 -0.54 +0.72 +0.50 +0.27 +0.32 +0.42 +0.24 -0.19 +0.14 -0.42 +0.67 0
    // gains = 3.34, losses = 1.40 → RSI = 100 * 3.34 / (3.34 + 1.40) = 334 / 4.74 = 70.464135021097…
    expect(out[14]).toBeCloseTo(334 / 4.74, 9);
    // The package would have said 70.46: we must not round.
    expect(Math.abs(out[14]! - 70.46)).toBeGreaterThan(1e-3);
  });

  it("then smooths with Wilder's (prev * 13 + current) / 14", () => {
    // change at 15 = -0.28: avgGain = (3.34/14 * 13 + 0)/14 = 43.42/196
    // avgLoss = (1.40/14 * 13 + 0.28)/14 = (1.30 + 0.28)/14 = 22.12/196
    // RSI = 100 * 43.42 / (43.42 + 22.12) = 4342 / 65.54 = 66.24961855355…
    expect(out[15]).toBeCloseTo(4342 / 65.54, 9);
  });

  it("is 100 with no losses and 50 with no change at all", () => {
    // period 2 on a rising series: losses are 0 → 100
    expect(Array.from(rsi(Float64Array.from([1, 2, 3, 4]), 2))).toEqual([NaN, NaN, 100, 100]);
    expect(Array.from(rsi(Float64Array.from([5, 5, 5]), 2))).toEqual([NaN, NaN, 50]);
  });
});
