import { describe, expect, it } from "vitest";
import { probabilityOfOverfitting } from "../../../src/metrics/overfitting/pbo.js";
import {
  deflatedSharpe,
  perBarSharpe,
  trialSharpeVariance,
} from "../../../src/metrics/overfitting/sharpe-stats.js";
import { noiseStrategies } from "./noise-strategies.js";

// Eight sweeps of 100 pure-noise strategies (random long/short/flat entries on one random walk,
// 2000 bars each). The best of each sweep looks significant on its own (PSR against 0 near 1);
// once the search is accounted for it is not (DSR), and choosing it in-sample does no better than
// a coin out of sample (PBO near 1/2).

const sweeps = [1, 2, 3, 4, 5, 6, 7, 8].map((seed) => {
  const returns = noiseStrategies(seed, 100, 2000);
  const sharpes = returns.map(perBarSharpe);
  const best = sharpes.indexOf(Math.max(...sharpes));
  const d = deflatedSharpe({
    returns: returns[best]!,
    trials: returns.length,
    sharpeVariance: trialSharpeVariance(sharpes).value as number,
  });
  const p = probabilityOfOverfitting({ returns, blocks: 16 });
  return { psr: d.psr.value as number, dsr: d.dsr.value as number, pbo: p.pbo.value as number };
});
const average = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describe("a sweep of pure-noise strategies", () => {
  it("has a PBO near 1/2", () => {
    for (const s of sweeps) expect(s.pbo).toBeGreaterThan(0.2);
    expect(average(sweeps.map((s) => s.pbo))).toBeGreaterThan(0.3);
  });

  it("has a low DSR although the best strategy's PSR against 0 looks significant", () => {
    for (const s of sweeps) {
      expect(s.psr).toBeGreaterThan(0.95);
      expect(s.dsr).toBeLessThan(0.95);
    }
    expect(average(sweeps.map((s) => s.dsr))).toBeLessThan(0.7);
  });
});
