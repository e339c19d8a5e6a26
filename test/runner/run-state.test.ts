import { describe, expect, it } from "vitest";
import { alignSeries } from "../../src/engine/align-series.js";
import { brokerConfig } from "../../src/engine/broker-config.js";
import { Simulation } from "../../src/engine/simulation.js";
import {
  decodeRunState,
  encodeRunState,
  encodeStrategyState,
  reviveStrategyState,
} from "../../src/runner/run-state.js";
import { BacktestContext } from "../../src/strategy/context.js";
import { daily, series } from "../engine/helpers.js";

/** Two symbols, four daily bars: A closes 10, 20, 30, 40; B 1, 2, 3, 4. */
function context() {
  const bars = (k: number) =>
    [1, 2, 3, 4].map((n) => [n * k, n * k, n * k, n * k] as [number, number, number, number]);
  const data = alignSeries([
    series("A", daily("2021-03-01", bars(10))),
    series("B", daily("2021-03-01", bars(1))),
  ]);
  const sim = new Simulation(data, brokerConfig());
  return { ctx: new BacktestContext(data, sim.broker, {}, null), sim };
}

/** A run's state at `bar`, nothing yet settled, holding the strategy's `state`. */
const atBar = (sim: Simulation, bar: number, strategyState: unknown) => ({
  bar,
  broker: sim.broker.exportState(),
  endsClosed: 0,
  settled: { orders: 0, trades: 0, rejected: 0 },
  stopRequest: null,
  strategyState,
});

const skipped = (state: unknown) => {
  const { ctx } = context();
  const r = encodeStrategyState(state, ctx);
  return "skipped" in r ? r.skipped : null;
};

describe("a strategy's state saved with a checkpoint", () => {
  it("keeps the indicators created before it, in order, though the state holds only one", () => {
    const { ctx, sim } = context();
    ctx.indicator("rsi", { period: 2 });
    const state = { onB: ctx.indicator("sma", { period: 2 }, { symbol: "B" }) };
    const before = ctx.indicatorsUsed();
    expect(before.map((u) => u.name)).toEqual(["rsi", "sma"]);
    const bytes = encodeRunState(atBar(sim, 2, state), ctx);
    if (!("bytes" in bytes)) throw new Error(bytes.skipped);
    const { ctx: again } = context();
    for (let i = 0; i <= 2; i++) again.advance(i);
    reviveStrategyState(decodeRunState(bytes.bytes), again);
    expect(again.indicatorsUsed()).toEqual(before);
  });

  it("holds plain JSON and indicator views, and reads back to views on the same series", () => {
    const { ctx, sim } = context();
    const state = {
      n: 3,
      tags: ["a", "b"],
      last: null,
      nested: { ok: true, x: -1.5 },
      fast: ctx.indicator("sma", { period: 2 }),
      onB: ctx.indicator("sma", { period: 2 }, { symbol: "B" }),
    };
    const bytes = encodeRunState(atBar(sim, 2, state), ctx);
    if (!("bytes" in bytes)) throw new Error(bytes.skipped);
    const saved = decodeRunState(bytes.bytes);

    const { ctx: again } = context();
    for (let i = 0; i <= 2; i++) again.advance(i);
    const revived = reviveStrategyState(saved, again) as typeof state;
    expect({ ...revived, fast: null, onB: null }).toEqual({ ...state, fast: null, onB: null });
    // SMA(2) at bar 2: (20 + 30) / 2 on A, (2 + 3) / 2 on B; one bar ago (10 + 20) / 2.
    expect([revived.fast.value, revived.fast.at(1), revived.onB.value]).toEqual([25, 15, 2.5]);
  });

  it("a top-level undefined (no init) reads back as undefined", () => {
    const { ctx, sim } = context();
    const bytes = encodeRunState(atBar(sim, 0, undefined), ctx);
    if (!("bytes" in bytes)) throw new Error(bytes.skipped);
    expect(reviveStrategyState(decodeRunState(bytes.bytes), context().ctx)).toBeUndefined();
  });

  it("is not saved, with the reason, when JSON would read it back as another value", () => {
    const shared = { k: 1 };
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(skipped({ seen: new Map() })).toBe("state.seen is a Map, not a plain object");
    expect(skipped({ x: Number.NaN })).toBe("state.x is NaN, which JSON cannot hold");
    expect(skipped({ x: -0 })).toBe("state.x is -0, which JSON cannot hold");
    expect(skipped({ x: Number.POSITIVE_INFINITY })).toMatch(/state\.x is Infinity/);
    expect(skipped({ a: shared, b: shared })).toBe("state.b is a shared or circular reference");
    expect(skipped(cyclic)).toBe("state.self is a shared or circular reference");
    expect(skipped({ f: () => 1 })).toBe("state.f is a function");
    expect(skipped({ u: undefined })).toBe("state.u is undefined");
    const holed = [1, 2, 3];
    delete holed[1];
    expect(skipped(holed)).toBe("state has a hole at 1");
    expect(skipped({ d: new Date(0) })).toBe("state.d is a Date, not a plain object");
    expect(skipped({ t: new Float64Array(2) })).toMatch(/state\.t is a Float64Array/);
    expect(skipped(JSON.parse('{"__proto__": 1}'))).toBe("state has the key __proto__");
    expect(
      skipped({
        get g() {
          return 1;
        },
      }),
    ).toBe("state.g is an accessor or hidden property");
    expect(skipped({ n: 1n })).toBe("state.n is a bigint");
  });
});
