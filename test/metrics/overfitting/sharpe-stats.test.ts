import { describe, expect, it } from "vitest";
import { normalCdf, normalQuantile } from "../../../src/metrics/overfitting/normal.js";
import {
  deflatedSharpe,
  EULER_MASCHERONI,
  expectedMaxSharpe,
  perBarSharpe,
  probabilisticSharpe,
  returnMoments,
  trialSharpeVariance,
} from "../../../src/metrics/overfitting/sharpe-stats.js";

// The worked examples of docs/statistics.md. Their last digits (the Φ of a z that is not in any
// table) come from mpmath at 40 digits, evaluating the same formulas independently.

const close = (got: number | null, want: number, tol = 1e-9) => {
  expect(got).not.toBeNull();
  expect(Math.abs((got as number) - want)).toBeLessThan(tol);
};

describe("returnMoments (docs example 1)", () => {
  const returns = [0.01, -0.02, 0.03, 0];
  it("takes the sample Sharpe and the population skewness and kurtosis", () => {
    const m = returnMoments(returns);
    // mean 0.005; deviations ±0.005, ±0.025; Σd² = 0.0013, Σd³ = 0, Σd⁴ = 7.825e-7.
    close(m.mean, 0.005, 1e-15);
    close(m.std, Math.sqrt(0.0013 / 3), 1e-15);
    close(m.sharpe, Math.sqrt(3 / 52)); // 0.005 / √(0.0013 / 3)
    close(m.sharpe, 0.2401922307076307);
    close(m.skewness, 0);
    close(m.kurtosis, 313 / 169); // (7.825e-7 / 4) / (0.0013 / 4)²
    close(m.kurtosis, 1.85207100591716);
    expect(m.reason).toBeNull();
    close(perBarSharpe(returns), m.sharpe, 1e-15);
  });

  it("says why when the moments mean nothing", () => {
    expect(returnMoments([0.01, 0.02, 0.03]).reason).toMatch(/too few bars: 3 returns/);
    const flat = returnMoments([0.001, 0.001, 0.001, 0.001, 0.001]);
    expect(flat.reason).toMatch(/zero variance/);
    expect(flat.sharpe).toBeNaN();
    expect(returnMoments([0, 1, Number.NaN, 2]).reason).toMatch(/not a finite number/);
  });

  it("scores a flat series for ranking: 0 with no mean, ±Infinity with one", () => {
    expect(perBarSharpe([0, 0, 0])).toBe(0);
    expect(perBarSharpe([0.01, 0.01])).toBe(Number.POSITIVE_INFINITY);
    expect(perBarSharpe([-0.01, -0.01])).toBe(Number.NEGATIVE_INFINITY);
    expect(perBarSharpe([0.01])).toBeNaN();
  });
});

describe("probabilisticSharpe (docs example 2)", () => {
  it("is Φ((SR − SR*)·√(T − 1) / √(1 − γ₃·SR + (γ₄ − 1)/4·SR²))", () => {
    // SR 0.2 against 0.05 over 401 returns, skewness −0.5, kurtosis 12:
    // radicand 1 + 0.1 + (11/4)·0.04 = 1.21, z = 0.15 · 20 / 1.1 = 30/11.
    const psr = probabilisticSharpe({
      sharpe: 0.2,
      benchmark: 0.05,
      observations: 401,
      skewness: -0.5,
      kurtosis: 12,
    });
    close(psr.value, normalCdf(30 / 11), 1e-15);
    close(psr.value, 0.9968069883586465);
    expect(psr.reason).toBeNull();
  });

  it("falls as the skewness turns negative and the tails fatten", () => {
    const at = (skewness: number, kurtosis: number) =>
      probabilisticSharpe({ sharpe: 0.1, benchmark: 0, observations: 252, skewness, kurtosis })
        .value as number;
    expect(at(-1, 3)).toBeLessThan(at(0, 3));
    expect(at(0, 9)).toBeLessThan(at(0, 3));
    // Normal returns: the radicand is 1 + SR²/2.
    close(at(0, 3), normalCdf((0.1 * Math.sqrt(251)) / Math.sqrt(1.005)), 1e-15);
  });

  it("is null with its reason for too few bars, impossible moments or non-finite inputs", () => {
    const base = { sharpe: 0.1, benchmark: 0, observations: 100, skewness: 0, kurtosis: 3 };
    expect(probabilisticSharpe({ ...base, observations: 1 }).reason).toMatch(/too few bars/);
    expect(probabilisticSharpe({ ...base, observations: 10.5 }).reason).toMatch(/too few bars/);
    expect(probabilisticSharpe({ ...base, skewness: 30, kurtosis: 1 }).reason).toMatch(
      /not those of any distribution/,
    );
    expect(probabilisticSharpe({ ...base, sharpe: Number.NaN })).toEqual({
      value: null,
      reason: "the sharpe is not a finite number",
    });
  });
});

describe("expectedMaxSharpe and deflatedSharpe", () => {
  it("reproduces the Deflated Sharpe Ratio paper's example (docs example 3)", () => {
    // Bailey & López de Prado (2014): N = 100 trials, annualised Sharpe variance 1/2, best
    // annualised Sharpe 2.5 over 1250 daily returns (250 a year), skewness −3, kurtosis 10.
    // The paper gives E[max SR] ≈ 0.1132 per day and DSR ≈ 0.9004.
    const expected = expectedMaxSharpe({ trials: 100, sharpeVariance: 0.5 / 250 });
    const z =
      (1 - EULER_MASCHERONI) * normalQuantile(1 - 1 / 100) +
      EULER_MASCHERONI * normalQuantile(1 - 1 / (100 * Math.E));
    close(z, 2.530602893201682);
    close(expected.value, Math.sqrt(0.002) * z, 1e-15);
    close(expected.value, 0.11317200186513203, 1e-9);
    close(expected.value, 0.1132, 5e-5);
    const shape = { sharpe: 2.5 / Math.sqrt(250), observations: 1250, skewness: -3, kurtosis: 10 };
    const dsr = probabilisticSharpe({ ...shape, benchmark: expected.value as number });
    close(dsr.value, 0.900396834449391);
    close(dsr.value, 0.9004, 5e-5);
    close(probabilisticSharpe({ ...shape, benchmark: 0 }).value, 0.9999968595078976);
  });

  it("deflates a short series' Sharpe against 10 trials (docs example 4)", () => {
    // Example 1's returns, best of 10 trials whose per-bar Sharpe varies with variance 0.01.
    const d = deflatedSharpe({ returns: [0.01, -0.02, 0.03, 0], trials: 10, sharpeVariance: 0.01 });
    // E[max SR] = 0.1·((1 − γ)·Φ⁻¹(0.9) + γ·Φ⁻¹(1 − 1/(10e))) = 0.1 · 1.57459830134575
    close(d.expectedMaxSharpe.value, 0.157459830134575);
    // radicand 1 − 0 + (313/169 − 1)/4 · 3/52 = 2224/2197; z = (SR − SR*)·√3 / √radicand.
    const scale = Math.sqrt(3) / Math.sqrt(2224 / 2197);
    close(d.psr.value, normalCdf(Math.sqrt(3 / 52) * scale), 1e-15);
    close(d.psr.value, 0.6603769465599171);
    close(d.dsr.value, 0.5566275389773452);
    expect(d.observations).toBe(4);
    close(d.sharpe, Math.sqrt(3 / 52));
    close(d.skewness, 0);
    close(d.kurtosis, 313 / 169);
  });

  it("grows the expected maximum with the trial count and the spread of the trials", () => {
    const at = (trials: number, sharpeVariance = 1) =>
      expectedMaxSharpe({ trials, sharpeVariance }).value as number;
    expect(at(10)).toBeLessThan(at(100));
    expect(at(100)).toBeLessThan(at(1000));
    close(at(100, 4), 2 * at(100), 1e-15);
    // Nothing selected among identical trials: no inflation.
    expect(expectedMaxSharpe({ trials: 50, sharpeVariance: 0 }).value).toBe(0);
  });

  it("is close to the true expected maximum of N standard normals", () => {
    // E[max of N] = ∫ x · N·φ(x)·Φ(x)^(N−1) dx, by the trapezoid rule on [−12, 12].
    const exact = (n: number) => {
      let sum = 0;
      const h = 0.001;
      for (let x = -12; x <= 12; x += h)
        sum += x * n * Math.exp(-0.5 * x * x) * normalCdf(x) ** (n - 1);
      return (sum * h) / Math.sqrt(2 * Math.PI);
    };
    // The approximation is meant for many trials: 2.3 % high at 10, 0.9 % at 100, 0.4 % at 1000.
    for (const [n, within] of [
      [10, 0.03],
      [100, 0.01],
      [1000, 0.005],
    ] as const) {
      const approx = expectedMaxSharpe({ trials: n, sharpeVariance: 1 }).value as number;
      expect(approx).toBeGreaterThan(exact(n));
      expect((approx - exact(n)) / exact(n)).toBeLessThan(within);
    }
    // N = 2: the true value is 1/√π; the approximation is 8 % low.
    close(exact(2), 1 / Math.sqrt(Math.PI), 1e-9);
  });

  it("gives null figures with reasons, never NaN", () => {
    expect(expectedMaxSharpe({ trials: 1, sharpeVariance: 1 }).reason).toMatch(/too few trials/);
    expect(expectedMaxSharpe({ trials: 10, sharpeVariance: -1 }).reason).toMatch(/negative/);
    expect(expectedMaxSharpe({ trials: 10, sharpeVariance: Number.NaN }).reason).toMatch(
      /not a finite number/,
    );
    const one = deflatedSharpe({ returns: [0.01, -0.02, 0.03, 0], trials: 1, sharpeVariance: 0 });
    expect(one.psr.value).not.toBeNull();
    expect(one.dsr).toEqual({ value: null, reason: one.expectedMaxSharpe.reason });
    const flat = deflatedSharpe({ returns: [0, 0, 0, 0, 0], trials: 5, sharpeVariance: 0.1 });
    expect(flat.psr.reason).toMatch(/zero variance/);
    expect(flat.dsr.reason).toMatch(/zero variance/);
    expect(flat.expectedMaxSharpe.value).not.toBeNull();
    expect(
      deflatedSharpe({ returns: [0.1, 0.2], trials: 5, sharpeVariance: 0.1 }).dsr.reason,
    ).toMatch(/too few bars/);
  });

  it("takes the sample variance of the trials' Sharpe ratios, leaving out undefined ones", () => {
    close(trialSharpeVariance([0.1, 0.2, 0.3, Number.NaN]).value, 0.01, 1e-15);
    expect(trialSharpeVariance([0.1, Number.POSITIVE_INFINITY]).reason).toMatch(/too few trials/);
  });
});
