import { describe, expect, it } from "vitest";
import { alignSeries } from "../../src/engine/align-series.js";
import { brokerConfig } from "../../src/engine/broker-config.js";
import type { ProgressEvent, RunEvent } from "../../src/runner/run-events.js";
import { simulate } from "../../src/runner/simulate.js";
import type { Strategy } from "../../src/strategy/types.js";
import { daily, series } from "../engine/helpers.js";

// Closes 10, 12, 9, 8; opens 10, 11, 12, 8.
const data = alignSeries([
  series(
    "AAA",
    daily("2024-01-01", [
      [10, 10, 10, 10],
      [11, 12, 11, 12],
      [12, 12, 9, 9],
      [8, 8, 8, 8],
    ]),
  ),
]);

/** Bar 0: buy 1 (fills at bar 1's open, 11). Bar 1: buy 1000 (rejected for cash at bar 2's
 * open). Bar 2: close (fills at bar 3's open, 8). */
const strategy: Strategy<unknown> = {
  name: "scripted",
  onBar(ctx) {
    if (ctx.index === 0) ctx.buy({ qty: 1 });
    if (ctx.index === 1) ctx.buy({ qty: 1000 });
    if (ctx.index === 2) ctx.closePosition();
  },
};

describe("simulate(): the in-memory core and its events", () => {
  it("returns the curve, trades and orders, and reports fills, rejections and progress as they happen", async () => {
    const events: RunEvent[] = [];
    const out = await simulate({
      data,
      broker: brokerConfig({ initialCash: 100 }),
      strategy,
      onEvent: (e) => events.push(e),
    });
    expect(out.status).toBe("completed");
    // Cash 100 → 89 after buying at 11; equity = 89 + close.
    expect([...out.equity]).toEqual([100, 101, 98, 97]);
    expect([...out.cash]).toEqual([100, 89, 89, 97]);
    // Buy-and-hold: 10 units bought at the first close, 10.
    expect([...out.benchmark]).toEqual([100, 120, 90, 80]);
    expect(out.trades.map((t) => [t.entryPrice, t.exitPrice, t.pnl])).toEqual([[11, 8, -3]]);
    expect(out.orders.map((o) => o.status)).toEqual(["filled", "rejected", "filled"]);

    const kinds = events.map((e) => (e.type === "progress" ? `progress@${e.bar}` : e.type));
    // Each event at the bar it happened: the rejection before bar 2's progress, not at the end.
    expect(kinds).toEqual([
      "order_accepted",
      "progress@0",
      "fill",
      "order_accepted",
      "progress@1",
      "order_rejected",
      "order_accepted",
      "progress@2",
      "fill",
      "trade_closed",
      "progress@3",
    ]);
    const rejected = events.find((e) => e.type === "order_rejected");
    expect(rejected?.type === "order_rejected" && rejected.bar).toBe(2);
    expect(rejected?.type === "order_rejected" && rejected.reason).toMatch(/cash/);

    const p = events.filter((e): e is ProgressEvent => e.type === "progress");
    const bar2 = p[2] as ProgressEvent;
    expect(bar2.done).toBe(3);
    expect(bar2.total).toBe(4);
    expect(bar2.time).toBe("2024-01-03");
    expect(bar2.equity).toBe(98);
    expect(bar2.cash).toBe(89);
    expect(bar2.peakEquity).toBe(101);
    expect(bar2.drawdownPct).toBeCloseTo((98 / 101 - 1) * 100, 12);
    expect(bar2.returnPct).toBeCloseTo(-2, 12);
    expect(bar2.benchmarkEquity).toBe(90);
    expect(bar2.benchmarkReturnPct).toBeCloseTo(-10, 12);
    expect(bar2.positions).toEqual([{ symbol: "AAA", qty: 1 }]);
    expect((p[3] as ProgressEvent).positions).toEqual([]);
  });

  it("a strategy that throws ends the run failed with the bar it was thrown at, the curve up to the bar before", async () => {
    const out = await simulate({
      data,
      broker: brokerConfig({ initialCash: 100 }),
      strategy: {
        name: "thrower",
        onBar(ctx) {
          if (ctx.index === 2) throw new Error("boom");
        },
      },
    });
    expect(out.status).toBe("failed");
    expect(out.error).toMatchObject({ type: "Error", message: "boom", at: "2024-01-03" });
    expect(out.lastIndex).toBe(1);
    expect([...out.equity]).toEqual([100, 100]);
  });
});
