import { describe, expect, it } from "vitest";
import { computeBenchmarkMetrics, computeMetrics } from "../../src/metrics/compute-metrics.js";
import { DAY, everyDay, HOUR, input, trade, utc, weekdays } from "./fixtures.js";

describe("computeMetrics on a flat curve", () => {
  const { metrics: m, nullReasons } = computeMetrics(
    input(weekdays("2024-01-01T00:00:00", 5), [1000, 1000, 1000, 1000, 1000], {
      exposedBars: 3,
      commissions: 1.5,
      slippage: 0.25,
    }),
  );

  it("reports the span, zero return and zero volatility", () => {
    expect(m.start).toBe("2024-01-01");
    expect(m.end).toBe("2024-01-05");
    expect(m.durationDays).toBe(4);
    expect(m.bars).toBe(5);
    expect(m.exposurePct).toBe(60); // 3 of 5 bars
    expect(m.equityFinal).toBe(1000);
    expect(m.equityPeak).toBe(1000);
    expect(m.returnPct).toBe(0);
    expect(m.returnAnnPct).toBe(0);
    expect(m.volatilityAnnPct).toBe(0);
    expect(m.cagrPct).toBe(0);
    expect(m.periodsPerYear).toBe(252);
    expect(m.commissions).toBe(1.5);
    expect(m.slippage).toBe(0.25);
  });

  it("has no drawdown", () => {
    expect(m.maxDrawdownPct).toBe(0);
    expect(m.avgDrawdownPct).toBe(0);
    expect(m.maxDrawdownDurationDays).toBe(0);
    expect(m.avgDrawdownDurationDays).toBe(0);
  });

  it("leaves the risk ratios null and says why", () => {
    expect(m.sharpe).toBeNull();
    expect(nullReasons.sharpe).toBe("volatility is 0");
    expect(m.sortino).toBeNull();
    expect(nullReasons.sortino).toBe("no losing periods: downside deviation is 0");
    expect(m.calmar).toBeNull();
    expect(nullReasons.calmar).toBe("no drawdown: max drawdown is 0");
    expect(m.beta).toBeNull();
    expect(nullReasons.beta).toBe("the benchmark never moves: its variance is 0");
    expect(m.alphaPct).toBeNull();
    expect(m.trades).toBe(0);
    expect(m.winRatePct).toBeNull();
    expect(nullReasons.winRatePct).toBe("no closed trades");
  });
});

describe("computeMetrics on a steadily rising curve", () => {
  // Mon–Thu, each day exactly +1/1024 (all values are exact integers, so the returns are exact).
  const equity = [1024 ** 3, 1024 ** 2 * 1025, 1024 * 1025 ** 2, 1025 ** 3];
  const { metrics: m, nullReasons } = computeMetrics(
    input(weekdays("2024-01-01T00:00:00", 4), equity),
  );
  const growth = 1025 / 1024;

  it("compounds the daily return over 252 days", () => {
    expect(m.returnPct).toBeCloseTo((growth ** 3 - 1) * 100, 10); // 0.2933 %
    // Geometric mean daily return g = 1/1024; (1 + g)^252 − 1 = 27.90 %.
    expect(m.returnAnnPct).toBeCloseTo((growth ** 252 - 1) * 100, 10);
    expect(m.returnAnnPct).toBeCloseTo(27.9, 1);
  });

  it("compounds CAGR over calendar time", () => {
    // 3 days of leap year 2024 = 3/366 years: (growth³)^(366/3) − 1 = growth^366 − 1.
    expect(m.cagrPct).toBeCloseTo((growth ** 366 - 1) * 100, 8);
  });

  it("has zero volatility and no drawdown, so Sharpe, Sortino and Calmar are null", () => {
    expect(m.volatilityAnnPct).toBe(0);
    expect(m.maxDrawdownPct).toBe(0);
    expect(nullReasons.sharpe).toBe("volatility is 0");
    expect(nullReasons.sortino).toBe("no losing periods: downside deviation is 0");
    expect(nullReasons.calmar).toBe("no drawdown: max drawdown is 0");
  });
});

describe("computeMetrics on a curve that rises then falls", () => {
  // Mon 100, Tue 110, Wed 99: daily returns +10 %, −10 %.
  const { metrics: m } = computeMetrics(input(weekdays("2024-01-01T00:00:00", 3), [100, 110, 99]));

  it("annualises return and volatility the backtesting.py way", () => {
    // g = √(1.1 · 0.9) − 1 = √0.99 − 1, so (1 + g)^252 = 0.99^126; 0.99^126 − 1 = −71.814 %.
    expect(m.returnAnnPct).toBeCloseTo((0.99 ** 126 - 1) * 100, 8);
    expect(m.returnAnnPct).toBeCloseTo(-71.814, 3);
    // Sample variance of ±0.1 = 0.02; (0.02 + (1 + g)²)^252 − (1 + g)^504 = 1.01^252 − 0.99^252;
    // √(12.2735 − 0.0795) = 3.4921 → 349.21 %.
    expect(m.volatilityAnnPct).toBeCloseTo(Math.sqrt(1.01 ** 252 - 0.99 ** 252) * 100, 8);
    expect(m.volatilityAnnPct).toBeCloseTo(349.21, 2);
  });

  it("computes Sharpe, Sortino and Calmar from the annualised figures", () => {
    const annRet = 0.99 ** 126 - 1;
    // Sharpe = −0.71814 / 3.4921 = −0.20565.
    expect(m.sharpe).toBeCloseTo(annRet / Math.sqrt(1.01 ** 252 - 0.99 ** 252), 8);
    expect(m.sharpe).toBeCloseTo(-0.20565, 4);
    // Downside deviation √(mean(0², 0.1²)) · √252 = √(0.005 · 252) = √1.26 = 1.1225.
    expect(m.sortino).toBeCloseTo(annRet / Math.sqrt(1.26), 8);
    expect(m.sortino).toBeCloseTo(-0.63977, 4);
    // Max drawdown 1 − 99/110 = 10 %: Calmar = −0.71814 / 0.1.
    expect(m.maxDrawdownPct).toBeCloseTo(-10, 10);
    expect(m.calmar).toBeCloseTo(annRet / 0.1, 8);
    expect(m.maxDrawdownDurationDays).toBe(1); // open since Tuesday's peak
  });
});

describe("computeMetrics drawdown figures", () => {
  it("reports max and average drawdown depth and duration, in negative percent and days", () => {
    const { metrics: m } = computeMetrics(
      input(everyDay("2024-01-01T00:00:00", 9), [100, 110, 99, 88, 110, 121, 108.9, 121, 130]),
    );
    // Two drawdowns: −20 % lasting 3 days (110 → 88 → 110), −10 % lasting 2 days (121 → 108.9 → 121).
    expect(m.maxDrawdownPct).toBeCloseTo(-20, 10);
    expect(m.avgDrawdownPct).toBeCloseTo(-15, 10); // (20 + 10) / 2
    expect(m.maxDrawdownDurationDays).toBe(3);
    expect(m.avgDrawdownDurationDays).toBe(2.5); // (3 + 2) / 2
    expect(m.returnPct).toBeCloseTo(30, 10); // 130 / 100 − 1
    expect(m.equityPeak).toBe(130);
  });
});

describe("computeMetrics CAGR", () => {
  it("is 10 % when equity grows 21 % over exactly two calendar years (monthly bars)", () => {
    // 25 month-start bars from 2020-01-01 to 2022-01-01, growing 1.21^(1/24) a month.
    const times = Float64Array.from({ length: 25 }, (_, k) => Date.UTC(2020, k, 1));
    const equity = Array.from({ length: 25 }, (_, k) => (k === 24 ? 121 : 100 * 1.21 ** (k / 24)));
    const { metrics: m } = computeMetrics(input(times, equity));
    expect(m.periodsPerYear).toBe(12);
    expect(m.durationDays).toBe(731); // 2020 is a leap year
    // 1.21^(1/2) − 1 = 10 %.
    expect(m.cagrPct).toBeCloseTo(10, 10);
    // Monthly g = 1.21^(1/24) − 1; (1 + g)^12 − 1 = 1.21^(1/2) − 1 = 10 % as well.
    expect(m.returnAnnPct).toBeCloseTo(10, 10);
  });
});

describe("computeMetrics alpha and beta", () => {
  it("gives beta 1 and alpha 0 for a curve identical to the benchmark", () => {
    const { metrics: m } = computeMetrics(
      input(weekdays("2024-01-01T00:00:00", 5), [100, 110, 99, 108.9, 120]),
    );
    expect(m.buyHoldReturnPct).toBeCloseTo(20, 10);
    expect(m.beta).toBe(1);
    expect(m.alphaPct).toBe(0);
  });

  it("gives beta 2 for a curve whose log returns are twice the benchmark's", () => {
    // equity = 100 · (benchmark / 100)²: 100, 121, 98.01, 118.5921.
    const bench = [100, 110, 99, 108.9];
    const { metrics: m } = computeMetrics(
      input(weekdays("2024-01-01T00:00:00", 4), [100, 121, 98.01, 118.5921], {
        benchmark: Float64Array.from(bench),
      }),
    );
    expect(m.beta).toBeCloseTo(2, 10);
    // Alpha = 18.5921 − 2 · 8.9 = 0.7921 %.
    expect(m.alphaPct).toBeCloseTo(0.7921, 8);
  });
});

describe("computeMetrics on hourly bars", () => {
  it("annualises the last equity of each day, not every bar", () => {
    // Mon–Wed, bars 10:00…15:00; days close at 100, 100.5 and 101, with noise in between.
    const hours = [10, 11, 12, 13, 14, 15];
    const times = Float64Array.from(
      [0, 1, 2].flatMap((d) => hours.map((h) => utc("2024-01-01T00:00:00") + d * DAY + h * HOUR)),
    );
    const equity = [
      [100, 96, 104, 97, 103, 100],
      [98, 105, 95, 104, 99, 100.5],
      [97, 106, 94, 102, 98, 101],
    ].flat();
    const { metrics: m } = computeMetrics(input(times, equity));
    expect(m.periodsPerYear).toBe(252);
    expect(m.durationDays).toBeCloseTo(2 + 5 / 24, 12); // Mon 10:00 → Wed 15:00
    // Daily returns 100 → 100.5 → 101: g = √1.01 − 1, so (1 + g)^252 − 1 = 1.01^126 − 1 = 35.09 %.
    expect(m.returnAnnPct).toBeCloseTo((1.01 ** 126 - 1) * 100, 8);
    // Bar-level drawdown still sees the intraday dip from 106 to 94: 1 − 94/106 = 11.32 %.
    expect(m.maxDrawdownPct).toBeCloseTo((94 / 106 - 1) * 100, 10);
  });
});

describe("computeMetrics with trades", () => {
  it("passes the trade statistics through", () => {
    const { metrics: m, nullReasons } = computeMetrics(
      input(weekdays("2024-01-01T00:00:00", 3), [100, 110, 99], {
        trades: [trade({ returnPct: 0.1, pnl: 10 }), trade({ returnPct: 0.3, pnl: 30 })],
      }),
    );
    expect(m.trades).toBe(2);
    expect(m.winRatePct).toBe(100);
    expect(m.expectancyPct).toBeCloseTo(20, 10); // (10 % + 30 %) / 2
    expect(m.profitFactor).toBeNull();
    expect(nullReasons.profitFactor).toBe(
      "no losing trades: gross loss is 0, so the ratio is undefined",
    );
  });
});

describe("computeBenchmarkMetrics", () => {
  it("measures the buy-and-hold curve from its own first value", () => {
    const { metrics: b, nullReasons } = computeBenchmarkMetrics(
      weekdays("2024-01-01T00:00:00", 3),
      Float64Array.of(100, 110, 99),
    );
    expect(b.returnPct).toBeCloseTo(-1, 10); // 99 / 100 − 1
    expect(b.returnAnnPct).toBeCloseTo((0.99 ** 126 - 1) * 100, 8);
    expect(b.maxDrawdownPct).toBeCloseTo(-10, 10);
    expect(b.sharpe).toBeCloseTo(-0.20565, 4);
    expect(nullReasons).toEqual({});
  });
});

describe("no Infinity, NaN or unexplained null", () => {
  const t5 = weekdays("2024-01-01T00:00:00", 5);
  const cases = {
    "no bars": input(new Float64Array(0), []),
    "one bar": input(weekdays("2024-01-01T00:00:00", 1), [100]),
    "two bars": input(weekdays("2024-01-01T00:00:00", 2), [100, 101]),
    flat: input(t5, [100, 100, 100, 100, 100]),
    "wiped out": input(weekdays("2024-01-01T00:00:00", 3), [100, 50, 0]),
    "below zero": input(weekdays("2024-01-01T00:00:00", 3), [100, 50, -10]),
    "all winners": input(t5, [100, 101, 102, 103, 104], {
      trades: [trade({ returnPct: 0.01, pnl: 1 })],
    }),
    "same timestamps": input(Float64Array.of(0, 0, 0), [100, 90, 80]),
    "zero initial cash": input(t5, [0, 0, 0, 0, 0]),
    "misaligned benchmark": input(t5, [100, 101, 99, 102, 98], {
      benchmark: Float64Array.of(100, 101),
      commissions: Number.NaN,
      slippage: Number.POSITIVE_INFINITY,
    }),
    "enormous growth": input(weekdays("2024-01-01T00:00:00", 3), [1, 1e150, 1e300]),
  };

  for (const [name, data] of Object.entries(cases)) {
    it(`explains every null (${name})`, () => {
      const { metrics, nullReasons } = computeMetrics(data);
      const json = JSON.stringify({ metrics, nullReasons });
      expect(json).not.toMatch(/Infinity|NaN/);
      for (const [field, value] of Object.entries(metrics)) {
        if (value === null) expect(nullReasons[field], field).toMatch(/\w/);
        else if (typeof value === "number") expect(Number.isFinite(value), field).toBe(true);
      }
      const nullFields = Object.entries(metrics)
        .filter(([, v]) => v === null)
        .map(([k]) => k);
      expect(Object.keys(nullReasons).sort()).toEqual(nullFields.sort());
    });
  }

  it("says why the compounded figures of a wiped-out account are null", () => {
    const { metrics, nullReasons } = computeMetrics(cases["wiped out"]);
    // 100 → 50 → 0: the second daily return is −100 %, so (1 + r) has no logarithm.
    expect(metrics.returnAnnPct).toBeNull();
    expect(nullReasons.returnAnnPct).toBe(
      "equity fell to 0 or below, so compounded returns are undefined",
    );
    expect(metrics.maxDrawdownPct).toBe(-100);
    expect(metrics.cagrPct).toBe(-100); // 0^(1/years) − 1
  });
});
