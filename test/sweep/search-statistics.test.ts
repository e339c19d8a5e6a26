import { describe, expect, it } from "vitest";
import { probabilityOfOverfitting } from "../../src/metrics/overfitting/pbo.js";
import {
  deflatedSharpe,
  perBarSharpe,
  trialSharpeVariance,
} from "../../src/metrics/overfitting/sharpe-stats.js";
import type { CombinationOutcome } from "../../src/sweep/run-combination.js";
import { searchStatistics } from "../../src/sweep/search-statistics.js";
import { noiseStrategies } from "../metrics/overfitting/noise-strategies.js";

const outcome = (index: number, status: CombinationOutcome["status"] = "completed") =>
  ({
    index,
    settings: { k: index },
    status,
    error: status === "failed" ? { type: "Error", message: "no" } : null,
    metrics: null,
    nullReasons: {},
    trades: { closed: 0, openAtEnd: 0, dataEnded: 0 },
    orders: {},
  }) as unknown as CombinationOutcome;

describe("searchStatistics", () => {
  const returns = noiseStrategies(3, 40, 600);

  it("gives the PSR and DSR of the best, and the PBO over every series, read one at a time", () => {
    const reads: number[] = [];
    const outcomes = returns.map((_, i) => outcome(i));
    const best = 7;
    const st = searchStatistics({
      outcomes: [...outcomes, outcome(40, "failed")],
      returnsOf: (i) => {
        reads.push(i);
        return returns[i] ?? null;
      },
      best,
      cscvBlocks: 10,
    });
    // Each completed combination's series is read once; the failed one's never.
    expect(reads.sort((a, b) => a - b)).toEqual(returns.map((_, i) => i));
    const v = trialSharpeVariance(returns.map(perBarSharpe));
    const d = deflatedSharpe({
      returns: returns[best] as Float64Array,
      trials: 40,
      sharpeVariance: v.value as number,
    });
    const p = probabilityOfOverfitting({ returns, blocks: 10 });
    expect(st.trials).toBe(41);
    expect(st.sharpeTrials).toBe(40);
    expect(st.sharpeVariance).toEqual(v);
    expect(st.psr).toEqual(d.psr);
    expect(st.dsr).toEqual(d.dsr);
    expect(st.expectedMaxSharpe).toEqual(d.expectedMaxSharpe);
    expect(st.bestSharpePerBar.value).toBe(d.sharpe);
    expect(st.pbo).toEqual(p.pbo);
    expect(st.probabilityOfLoss).toEqual(p.probabilityOfLoss);
    expect(st.pboCombinations).toBe(40);
    expect(st.cscvBlocks).toBe(10);
    expect(st.pbo.value).toBeGreaterThan(0);
  });

  it("leaves a shorter series (a run that ended early) out of the PBO, and says so when null", () => {
    const short = [returns[0] as Float64Array, (returns[1] as Float64Array).subarray(0, 300)];
    const st = searchStatistics({
      outcomes: [outcome(0), outcome(1)],
      returnsOf: (i) => short[i] ?? null,
      best: 0,
      cscvBlocks: 16,
    });
    expect(st.pboCombinations).toBe(1);
    expect(st.pbo.value).toBeNull();
    expect(st.pbo.reason).toMatch(/too few trials: 1.*1 completed combination\(s\) left out/);
    expect(st.dsr.value).not.toBeNull();
  });

  it("is null with a plain reason for one trial, no best, or a flat best", () => {
    const one = searchStatistics({
      outcomes: [outcome(0)],
      returnsOf: () => returns[0] as Float64Array,
      best: 0,
      cscvBlocks: 16,
    });
    expect(one.psr.value).not.toBeNull();
    expect(one.dsr).toEqual({ value: null, reason: expect.stringMatching(/too few trials/) });
    expect(one.pbo).toEqual({ value: null, reason: expect.stringMatching(/too few trials: 1/) });

    const none = searchStatistics({
      outcomes: [outcome(0, "failed"), outcome(1, "failed")],
      returnsOf: () => null,
      best: null,
      cscvBlocks: 16,
    });
    expect(none.psr.reason).toMatch(/no combination completed/);
    expect(none.dsr.reason).toMatch(/no combination completed/);
    expect(none.pbo.reason).toMatch(/too few trials: 0/);

    const flat = new Float64Array(600);
    const st = searchStatistics({
      outcomes: [outcome(0), outcome(1), outcome(2)],
      returnsOf: (i) => (i === 0 ? flat : (returns[i] as Float64Array)),
      best: 0,
      cscvBlocks: 16,
    });
    expect(st.psr.reason).toMatch(/zero variance/);
    expect(st.dsr.reason).toMatch(/zero variance/);
    expect(st.pbo.value).not.toBeNull();

    const allFlat = searchStatistics({
      outcomes: [outcome(0), outcome(1), outcome(2)],
      returnsOf: (i) => (i === 2 ? (returns[2] as Float64Array) : flat),
      best: 2,
      cscvBlocks: 16,
    });
    expect(allFlat.pbo.reason).toMatch(
      /zero variance: the equity of fewer than 2 combinations moved/,
    );
    expect(allFlat.probabilityOfLoss.value).toBeNull();
    expect(allFlat.psr.value).not.toBeNull();

    const fewBars = searchStatistics({
      outcomes: [outcome(0), outcome(1)],
      returnsOf: (i) => (returns[i] as Float64Array).subarray(0, 3),
      best: 0,
      cscvBlocks: 16,
    });
    expect(fewBars.psr.reason).toMatch(/too few bars/);
    expect(fewBars.pbo.reason).toMatch(/too few trials: 0,.*2 completed combination\(s\) left out/);
  });
});
