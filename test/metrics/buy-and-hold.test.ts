import { describe, expect, it } from "vitest";
import { alignSeries } from "../../src/engine/align-series.js";
import { buyAndHoldEquity } from "../../src/metrics/buy-and-hold.js";
import { daily, series } from "../engine/helpers.js";

const flat = (closes: number[]) => closes.map((c) => [c, c, c, c] as const);

describe("buy-and-hold benchmark with unequal ranges", () => {
  it("sells an early-ending symbol's share at its last close and holds it as cash", () => {
    const data = alignSeries([
      series("A", daily("2021-03-01", flat([100, 110, 120, 130, 140]))),
      series("B", daily("2021-03-01", flat([50, 60, 75]))), // ends on day 3
    ]);
    // 5,000 each: 50 A and 100 B. B's share is worth 100 × 75 = 7,500 from day 3 on.
    expect(Array.from(buyAndHoldEquity(data, 10_000))).toEqual([
      10_000,
      5_500 + 6_000,
      6_000 + 7_500,
      6_500 + 7_500,
      7_000 + 7_500,
    ]);
  });

  it("holds a late starter's share as cash until its first close", () => {
    const data = alignSeries([
      series("A", daily("2021-03-01", flat([100, 110, 120]))),
      series("L", daily("2021-03-02", flat([10, 20]))),
    ]);
    // L's 5,000 buys 500 units at 10 on day 2.
    expect(Array.from(buyAndHoldEquity(data, 10_000))).toEqual([
      10_000,
      5_500 + 5_000,
      6_000 + 10_000,
    ]);
  });
});
