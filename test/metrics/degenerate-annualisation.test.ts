import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { randomWalk, writeCsv } from "../../bench/generate-series.js";
import { formatSummary } from "../../src/cli/format-summary.js";
import { computeMetrics } from "../../src/metrics/compute-metrics.js";
import { backtest } from "../../src/runner/backtest.js";
import { tempDir } from "../helpers/cli.js";
import { input, weekdays } from "./fixtures.js";

/** `n` weekday closes from 100, alternating period returns `up` and `down` (up first). */
function alternating(n: number, up: number, down: number): number[] {
  const out = [100];
  for (let i = 1; i < n; i++) out.push((out[i - 1] as number) * (1 + (i % 2 === 1 ? up : down)));
  return out;
}

const near = (actual: number | null, expected: number) => {
  expect(actual).not.toBeNull();
  expect(Math.abs((actual as number) / expected - 1)).toBeLessThan(1e-9);
};

describe("annualised figures whose inputs underflow or overflow", () => {
  it("still defined: equity compounded over a year stays above a double's resolution", () => {
    // −30 %, +20 % alternately over 21 weekdays: 1 + g = √0.84, (1 + g)^252 = 0.84^126 ≈ 3e-10.
    const eq = alternating(21, -0.3, 0.2);
    const { metrics: m, nullReasons } = computeMetrics(
      input(weekdays("2024-01-01T00:00:00", 21), eq),
    );
    // Sample variance of ten −0.3 and ten +0.2: mean −0.05, every deviation ±0.25 → 1.25 / 19.
    const variance = 1.25 / 19;
    const vol = Math.sqrt((variance + 0.84) ** 252 - 0.84 ** 252);
    const annRet = 0.84 ** 126 - 1;
    near(m.volatilityAnnPct, vol * 100);
    near(m.sharpe, annRet / vol);
    // Downside: ten 0.3² over twenty returns, √(0.045 · 252).
    near(m.sortino, annRet / Math.sqrt(0.045 * 252));
    expect(nullReasons.volatilityAnnPct).toBeUndefined();
    expect(nullReasons.sharpe).toBeUndefined();
  });

  it("underflow: a curve losing about a quarter a day has no volatility or Sharpe", () => {
    // −50 %, +10 % alternately: (1 + g)^252 = 0.55^126 ≈ 1e-33, below 2^-52.
    const eq = alternating(21, -0.5, 0.1);
    const { metrics: m, nullReasons } = computeMetrics(
      input(weekdays("2024-01-01T00:00:00", 21), eq),
    );
    expect(m.volatilityAnnPct).toBeNull();
    expect(nullReasons.volatilityAnnPct).toMatch(
      /^annualising underflows: equity compounded over a year at the mean period return \(\(1\+g\)\^252 = 1\.\d\de-33\) is below a double's resolution of 1/,
    );
    expect(m.sharpe).toBeNull();
    expect(nullReasons.sharpe).toBe(`volatility is undefined: ${nullReasons.volatilityAnnPct}`);
    // What still means something is kept: the annual return is −100 %, and Sortino divides it by
    // the downside deviation of the period returns, √(mean(ten 0.5², ten 0²) · 252) = √31.5.
    expect(m.returnAnnPct).toBe(-100);
    near(m.sortino, -1 / Math.sqrt(31.5));
    near(m.calmar, -1 / (1 - (eq[19] as number) / 100));
  });

  it("overflow: a curve gaining twentyfold and halving has no volatility, and no Sharpe of 0", () => {
    // +1900 %, −50 % alternately: (1 + g)^252 = 10^126 is finite, (σ² + (1 + g)²)^252 is not.
    const eq = alternating(21, 19, -0.5);
    const { metrics: m, nullReasons } = computeMetrics(
      input(weekdays("2024-01-01T00:00:00", 21), eq),
    );
    expect(m.volatilityAnnPct).toBeNull();
    expect(nullReasons.volatilityAnnPct).toBe(
      "annualising overflows: (σ² + (1+g)²)^252 is beyond a double's range (period returns too large to compound over a year)",
    );
    // It read 10^126 / Infinity = 0.
    expect(m.sharpe).toBeNull();
    expect(nullReasons.sharpe).toBe(`volatility is undefined: ${nullReasons.volatilityAnnPct}`);
    near(m.returnAnnPct, (10 ** 126 - 1) * 100);
  });
});

describe("a blown account on a minute random walk", () => {
  const work = tempDir();
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  it("shows no volatility or Sharpe that means nothing: n/a with the reason", async () => {
    // As bench's minute workload (seed 7, from 2020-01-01), 100,000 bars: long/short SMA
    // crossover with commission, which takes 10,000 down to about 1 (the shorter walks tried,
    // 20,000 and 40,000 bars, do not end in the case this test is about).
    const csv = path.join(work, "WALK.csv");
    writeCsv(csv, randomWalk(100_000, 7, 60_000, Date.UTC(2020, 0, 1)));
    const r = await backtest({
      strategy: path.resolve("strategies/sma-crossover.ts"),
      data: [csv],
      broker: { commissionRate: 0.001, allowShort: true },
      params: { longShort: true },
    });
    expect(r.status).toBe("completed");
    const m = r.metrics;
    expect(m?.returnPct).toBeLessThan(-99.9);
    expect(m?.volatilityAnnPct).toBeNull();
    expect(m?.sharpe).toBeNull();
    expect(r.nullReasons.volatilityAnnPct).toMatch(/^annualising underflows/);
    expect(r.nullReasons.sharpe).toMatch(/^volatility is undefined: annualising underflows/);
    // Sortino and Calmar stay: the annual return (−100 %) over a deviation that does not compound.
    expect(m?.sortino).toBeLessThan(0);
    expect(m?.sortino).toBeGreaterThan(-1);
    const lines = formatSummary(r).split("\n");
    const row = (label: string) => lines.find((l) => l.startsWith(label)) ?? "";
    expect(row("Volatility (ann.) %").trim().split(/\s+/)[3]).toBe("n/a");
    expect(row("Sharpe").trim().split(/\s+/)[1]).toBe("n/a");
  }, 60_000);
});
