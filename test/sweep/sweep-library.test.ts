import path from "node:path";
import { describe, expect, it } from "vitest";
import { backtest, type CombinationOutcome, sweep, UsageError } from "../../src/index.js";
import { CscvBlocksError } from "../../src/metrics/overfitting/pbo.js";
import {
  WalkForwardDataError,
  WalkForwardSpecError,
} from "../../src/metrics/overfitting/walk-forward-windows.js";
import { barReturns, searchStatistics } from "../../src/sweep/search-statistics.js";
import smaCrossover from "../../strategies/sma-crossover.js";

const GOOG = path.resolve(import.meta.dirname, "..", "..", "data", "GOOG.csv");

describe("the library's sweep()", () => {
  it("gives each combination backtest()'s metrics, and each result to the callback as it arrives", async () => {
    const seen: CombinationOutcome[] = [];
    const out = await sweep({
      strategy: smaCrossover,
      data: [GOOG],
      broker: { allowShort: true },
      params: { longShort: true },
      grid: { fast: [10, 20], slow: "20:40:10", commission: [0, 0.002] },
      constraint: (c) => (c.fast as number) < (c.slow as number),
      onResult: (r, equity) => {
        seen.push(r);
        expect(equity?.length).toBe(r.metrics?.bars);
      },
    });
    // fast 10: slow 20, 30, 40; fast 20: slow 30, 40; × two commissions.
    expect(out.results).toHaveLength(10);
    expect(seen.map((r) => r.index).sort((a, b) => a - b)).toEqual(out.results.map((r) => r.index));
    expect(out.summary.total).toBe(10);
    expect(out.summary.statistics.trials).toBe(10);
    for (const r of out.results.filter((_, k) => k % 3 === 0)) {
      const { fast, slow, commission } = r.settings as {
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
      const keys = Object.keys(b.metrics ?? {});
      expect(keys.length).toBeGreaterThan(30);
      for (const k of keys)
        expect(r.metrics?.[k as keyof typeof r.metrics], k).toBe(
          b.metrics?.[k as keyof typeof b.metrics],
        );
    }
    const best = out.summary.best;
    expect(best).not.toBeNull();
    const sharpes = out.results.map((r) => r.metrics?.sharpe ?? -Infinity);
    expect(best?.value).toBe(Math.max(...sharpes));
  }, 60_000);

  it("minimizes, draws at random by seed, and takes an expression constraint", async () => {
    const run = (seed: number) =>
      sweep({
        strategy: smaCrossover,
        data: [GOOG],
        grid: { fast: "5:30:5", slow: "20:60:10" },
        constraint: "fast < slow",
        method: "random",
        maxTries: 4,
        seed,
        minimize: "maxDrawdownPct",
      });
    const a = await run(3);
    const b = await run(3);
    expect(a.results.map((r) => r.settings)).toEqual(b.results.map((r) => r.settings));
    expect(a.results).toHaveLength(4);
    expect(a.summary.objective).toEqual({ metric: "maxDrawdownPct", direction: "minimize" });
    const dds = a.results.map((r) => r.metrics?.maxDrawdownPct as number);
    expect(a.summary.best?.value).toBe(Math.min(...dds));
  }, 60_000);

  it("checks its options through the settings schema", async () => {
    const base = { strategy: smaCrossover, data: [GOOG], grid: { fast: [5] } };
    await expect(sweep({ ...base, grid: { fast: [5] }, method: "walk" as "grid" })).rejects.toThrow(
      /method "walk": use grid or random/,
    );
    await expect(sweep({ ...base, jobs: 0 })).rejects.toThrow(UsageError);
    await expect(sweep({ ...base, maximize: "sharp" })).rejects.toThrow(/did you mean sharpe/);
    await expect(sweep({ ...base, grids: {} } as never)).rejects.toThrow(
      /Unknown sweep\(\) option "grids"/,
    );
    await expect(sweep({ ...base, cscvBlocks: 7 })).rejects.toThrow(CscvBlocksError);
    await expect(sweep({ ...base, cscvBlocks: 0 })).rejects.toThrow(/cscvBlocks 0/);
    await expect(sweep({ ...base, walkForward: "train=5" })).rejects.toThrow(WalkForwardSpecError);
    await expect(sweep({ ...base, walkForward: "train=9000,test=5" })).rejects.toThrow(
      WalkForwardDataError,
    );
  });

  it("computes the search's statistics with cscvBlocks, and walks forward", async () => {
    const equities = new Map<number, Float64Array>();
    const out = await sweep({
      strategy: smaCrossover,
      data: [GOOG],
      grid: { fast: [5, 10, 20], slow: [30, 50] },
      cscvBlocks: 8,
      walkForward: "train=1000,test=400",
      onResult: (r, equity) => {
        if (equity !== null) equities.set(r.index, equity.slice());
      },
    });
    const st = out.summary.statistics;
    // Summarised as the series arrive, the same figures as from every series at the end.
    expect(st).toEqual(
      searchStatistics({
        outcomes: out.results,
        returnsOf: (i) => barReturns(equities.get(i) as Float64Array),
        best: out.summary.best?.index ?? null,
        cscvBlocks: 8,
      }),
    );
    expect(st.cscvBlocks).toBe(8);
    expect(st.pboCombinations).toBe(6);
    expect(st.pbo.value).toBeGreaterThanOrEqual(0);
    expect(st.dsr.value).toBeGreaterThanOrEqual(0);
    const wf = out.walkForward;
    expect(wf?.windows.map((w) => [w.train.firstBar, w.test.firstBar])).toEqual([
      [0, 1000],
      [400, 1400],
      [800, 1800],
    ]);
    // Each test span as backtest() runs it with from/to: the same metrics.
    const w = wf?.windows[1];
    const b = await backtest({
      strategy: smaCrossover,
      data: [GOOG],
      params: w?.best?.settings as Record<string, number>,
      from: w?.test.from,
      to: w?.test.to,
    });
    expect(w?.outOfSample).toEqual(b.metrics);
  }, 60_000);

  it("walks forward inside the from/to window, the bars before it history for every span", async () => {
    const out = await sweep({
      strategy: smaCrossover,
      data: [GOOG],
      grid: { fast: [5, 10], slow: [30] },
      from: "2010-01-01",
      to: "2012-12-31",
      walkForward: "train=1y,test=6m",
    });
    const windows = out.walkForward?.windows ?? [];
    expect(windows.length).toBe(4);
    const first = windows[0];
    expect(first?.train.from).toBe("2010-01-04");
    expect(first?.train.historyBars).toBeGreaterThan(1000);
    // A year after the first bar (2010-01-04), on the calendar.
    expect(first?.test.from).toBe("2011-01-04");
    expect(windows.at(-1)?.test.to).toBe("2012-12-31");
    // The in-sample best is a sweep's over the training span with from/to.
    const inSample = await sweep({
      strategy: smaCrossover,
      data: [GOOG],
      grid: { fast: [5, 10], slow: [30] },
      from: first?.train.from,
      to: first?.train.to,
    });
    expect(inSample.summary.best?.settings).toEqual(first?.best?.settings);
    expect(inSample.summary.best?.value).toBe(first?.best?.value);
    expect(inSample.summary.best?.metrics).toEqual(first?.inSample);
    for (const w of [windows[0], windows.at(-1)]) {
      const b = await backtest({
        strategy: smaCrossover,
        data: [GOOG],
        params: w?.best?.settings as Record<string, number>,
        from: w?.test.from,
        to: w?.test.to,
      });
      expect(w?.outOfSample).toEqual(b.metrics);
    }
  }, 60_000);
});
