import path from "node:path";
import { describe, expect, it } from "vitest";
import { backtest } from "../../src/index.js";
import { checkBroker } from "../../src/runner/library-settings.js";
import { loadData } from "../../src/runner/load-data.js";
import { prepareSweep } from "../../src/sweep/plan.js";
import {
  type CombinationRun,
  CombinationRunner,
  releaseEquity,
} from "../../src/sweep/run-combination.js";
import smaCrossover from "../../strategies/sma-crossover.js";

const GOOG = path.resolve(import.meta.dirname, "..", "..", "data", "GOOG.csv");

function prepared() {
  return prepareSweep({
    ...loadData({ data: [{ file: GOOG }], from: null, to: null, strict: false, tz: null }),
    strategy: smaCrossover,
    strategyPath: null,
    run: {
      broker: checkBroker({ allowShort: true }),
      params: { longShort: true },
      hookTimeoutMs: undefined,
    },
    search: {
      grid: [
        { name: "fast", values: [10, 20] },
        { name: "slow", values: [30, 40] },
        { name: "commission", values: [0, 0.002] },
      ],
      constraint: null,
      objective: { metric: "sharpe", direction: "maximize" },
      method: "grid",
      maxTries: null,
      seed: 1,
    },
  });
}

describe("CombinationRunner's reused columns", () => {
  it("fills a released equity column again, with each run's own numbers", async () => {
    const p = prepared();
    const runner = new CombinationRunner(p.data, smaCrossover, p.base, p.axes);
    const runs: { run: CombinationRun; copy: Float64Array }[] = [];
    for (const [index, settings] of p.combos.entries()) {
      const run = await runner.run(index, settings);
      // A copy taken before the column goes back: what the run's own curve was.
      runs.push({ run, copy: Float64Array.from(run.equity ?? []) });
      releaseEquity(run);
    }
    // Released at once, one column serves every combination.
    const buffers = new Set(runs.map((r) => r.run.equity?.buffer));
    expect(buffers.size).toBe(1);
    // Each run still equals a backtest of its own settings, curve and metrics.
    for (const { run, copy } of runs) {
      const { fast, slow, commission } = run.outcome.settings as {
        fast: number;
        slow: number;
        commission: number;
      };
      const b = await backtest({
        strategy: smaCrossover,
        data: [GOOG],
        broker: { allowShort: true, commissionRate: commission },
        params: { longShort: true, fast, slow },
      });
      expect(run.outcome.metrics).toEqual(b.metrics);
      expect(copy).toEqual(Float64Array.from(b.curve.equity));
    }
  }, 60_000);

  it("keeps a column that was not released: the next runs fill others", async () => {
    const p = prepared();
    const runner = new CombinationRunner(p.data, smaCrossover, p.base, p.axes);
    const first = await runner.run(0, p.combos[0] ?? {});
    const kept = Float64Array.from(first.equity ?? []);
    const others: CombinationRun[] = [];
    for (let k = 1; k < p.combos.length; k++) others.push(await runner.run(k, p.combos[k] ?? {}));
    expect(first.equity).toEqual(kept);
    for (const o of others) expect(o.equity?.buffer).not.toBe(first.equity?.buffer);
  }, 60_000);
});
