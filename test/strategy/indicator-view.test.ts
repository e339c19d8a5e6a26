import { describe, expect, it } from "vitest";
import { alignSeries } from "../../src/engine/align-series.js";
import { brokerConfig } from "../../src/engine/broker-config.js";
import { Simulation } from "../../src/engine/simulation.js";
import { BacktestContext } from "../../src/strategy/context.js";
import { daily, series } from "../engine/helpers.js";

/** A has bars on 1, 2 and 3 March; B only on 2 and 3 March, closes 0 then 5. */
function context() {
  const data = alignSeries([
    series(
      "A",
      daily("2021-03-01", [
        [10, 10, 10, 10],
        [10, 10, 10, 20],
        [20, 20, 20, 30],
      ]),
    ),
    series(
      "B",
      daily("2021-03-02", [
        [1, 1, 0, 0],
        [5, 5, 5, 5],
      ]),
    ),
  ]);
  const sim = new Simulation(data, brokerConfig());
  return new BacktestContext(data, sim.broker, {}, null);
}

describe("an indicator view (ctx.indicator)", () => {
  it("reads null during warm-up and before its symbol's first bar, numbers (±Infinity too) after", () => {
    const ctx = context();
    // Rate of change over one bar: 100 × (close − previous close) / previous close.
    const a = ctx.indicator("roc", { period: 1 });
    const b = ctx.indicator("roc", { period: 1 }, { symbol: "B" });
    ctx.advance(0);
    // A's first bar is its warm-up (NaN inside); B has no bar yet.
    expect([a.value, a.at(0), a.at(1), a.at(-1)]).toEqual([null, null, null, null]);
    expect([b.value, b.at(0), b.at(1)]).toEqual([null, null, null]);
    ctx.advance(1);
    expect([a.value, a.at(1)]).toEqual([100, null]);
    expect([b.value, b.at(1)]).toEqual([null, null]);
    ctx.advance(2);
    expect([a.value, a.at(1), a.at(2), a.at(3)]).toEqual([50, 100, null, null]);
    // B's close went from 0 to 5: an infinite rate of change is a number, not "no value".
    expect([b.value, b.at(1)]).toEqual([Number.POSITIVE_INFINITY, null]);
  });
});
