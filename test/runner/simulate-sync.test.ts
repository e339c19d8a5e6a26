import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { alignSeries } from "../../src/engine/align-series.js";
import { brokerConfig } from "../../src/engine/broker-config.js";
import type { EngineEvent } from "../../src/engine/types.js";
import type { RunEvent } from "../../src/runner/run-events.js";
import { simulate, simulateSync } from "../../src/runner/simulate.js";
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

const strategy: Strategy<unknown> = {
  name: "scripted",
  onBar(ctx) {
    if (ctx.index === 0) ctx.buy({ qty: 1 });
    if (ctx.index === 2) ctx.closePosition();
  },
};

describe("simulateSync(): the core without yielding (the engine tests' loop)", () => {
  it("gives what simulate() gives, and taps every engine event as emitted", async () => {
    const engine: EngineEvent[] = [];
    const syncEvents: RunEvent[] = [];
    const asyncEvents: RunEvent[] = [];
    const broker = brokerConfig({ initialCash: 100 });
    const sync = simulateSync(
      { data, broker, strategy, onEvent: (e) => syncEvents.push(e) },
      { onEvent: (e) => engine.push(e) },
    );
    const awaited = await simulate({ data, broker, strategy, onEvent: (e) => asyncEvents.push(e) });
    // Bought 1 at bar 1's open (11), sold at bar 3's open (8): cash 89, then 97.
    expect([...sync.equity]).toEqual([100, 101, 98, 97]);
    expect([...sync.equity]).toEqual([...awaited.equity]);
    expect([...sync.cash]).toEqual([...awaited.cash]);
    expect(sync.trades).toEqual(awaited.trades);
    expect([...sync.orderLog]).toEqual([...awaited.orderLog]);
    expect(sync.orderLog.length).toBeGreaterThan(0);
    const kinds = (es: RunEvent[]) => es.map((e) => e.type);
    expect(kinds(syncEvents)).toEqual(kinds(asyncEvents));
    // The tap sees the engine's own events, calendar ends included (daily data: a day end a bar).
    expect(engine.filter((e) => e.type === "day_end").map((e) => e.index)).toEqual([0, 1, 2, 3]);
    expect(engine.filter((e) => e.type === "fill").length).toBe(2);
    expect(engine.filter((e) => e.type === "run_end").map((e) => e.index)).toEqual([3]);
  });

  it("refuses a hook that returns a promise (only simulate() can await it)", () => {
    const async: Strategy<unknown> = { name: "async", onBar: async () => {} };
    expect(() =>
      simulateSync({ data, broker: brokerConfig({ initialCash: 100 }), strategy: async }),
    ).toThrow(/returned a promise: run it with simulate\(\)/);
  });

  it("is the engine tests' loop: their helper steps no bar itself", () => {
    const helper = fs.readFileSync(path.join(import.meta.dirname, "../engine/helpers.ts"), "utf8");
    expect(helper).toContain("simulateSync(");
    expect(helper).not.toMatch(/\.(openBar|closeBar)\(/);
  });
});
