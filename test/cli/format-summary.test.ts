import path from "node:path";
import { describe, expect, it } from "vitest";
import { formatSummary } from "../../src/cli/format-summary.js";
import { formatMetric, METRIC_FORMATS } from "../../src/metrics/metric-labels.js";
import type { RunResult } from "../../src/rundir/run-result.js";
import { backtest } from "../../src/runner/backtest.js";
import { DATA, ROOT } from "../helpers/cli.js";

async function googResult(): Promise<RunResult> {
  const r = await backtest({
    strategy: path.join(ROOT, "strategies/sma-crossover.ts"),
    data: [path.join(DATA, "GOOG.csv")],
  });
  return r as unknown as RunResult;
}

const row = (text: string, label: string) =>
  text.split("\n").find((l) => l.startsWith(label)) ?? "";

describe("the summary table", () => {
  it("keeps its 14-character columns for ordinary numbers", async () => {
    const text = formatSummary(await googResult());
    const header = text.split("\n").find((l) => l.includes("Strategy")) ?? "";
    expect(header).toBe(`${"".padEnd(22)}${"Strategy".padStart(14)}${"Buy & hold".padStart(14)}`);
    expect(row(text, "Return %")).toHaveLength(22 + 14 + 14);
  });

  it("widens both columns for a number wider than 13 characters, so no two values touch", async () => {
    const r = await googResult();
    // A synthetic series' buy-and-hold can have an absurd annualised volatility.
    (r.benchmark.metrics as { volatilityAnnPct: number }).volatilityAnnPct = 273_388_204_924_721.88;
    for (const text of [formatSummary(r), formatSummary(r, { allMetrics: true })]) {
      const label = "Volatility (ann.) %";
      const cells = row(text, label).slice(label.length).trim().split(/\s+/);
      expect(cells).toHaveLength(2);
      expect(cells[1]).toBe("273,388,204,924,721.88");
    }
    // The widest cell is 22 characters ("273,388,204,924,721.88"): columns of 23.
    const text = formatSummary(r);
    expect(row(text, "Return %")).toHaveLength(22 + 23 + 23);
  });
});

describe("--metrics all", () => {
  it("names every metric of result.json for people, with its decimals, and leaves no trailing space", async () => {
    const r = await googResult();
    const text = formatSummary(r, { allMetrics: true });
    const lines = text.split("\n");
    const m = r.metrics as unknown as Record<string, unknown>;
    const b = r.benchmark.metrics as unknown as Record<string, unknown>;
    expect(Object.keys(m).sort()).toEqual(Object.keys(METRIC_FORMATS).sort());
    for (const [key, { label }] of Object.entries(METRIC_FORMATS)) {
      const line = row(text, label);
      expect(line, key).not.toBe("");
      // No camelCase key where people read.
      expect(line.startsWith(key)).toBe(false);
      const cells = line
        .slice(label.length)
        .trim()
        .split(/\s{2,}/);
      expect(cells[0]).toBe(formatMetric(key, m[key]));
      if (key in b) expect(cells[1]).toBe(formatMetric(key, b[key]));
    }
    expect(row(text, "Beta")).toMatch(/\s-?\d\.\d{4}/);
    expect(row(text, "Commissions")).toMatch(/\s\d{1,3}(,\d{3})*\.\d{2}$/);
    for (const l of lines) expect(l).toBe(l.trimEnd());
  });
});

describe("the note on the number of trades", () => {
  it("counts the positions still open at the end, and says when there were none at all", async () => {
    const r = await googResult();
    const m = r.metrics as NonNullable<RunResult["metrics"]>;
    m.trades = 4;
    r.trades = { closed: 3, openAtEnd: 1, dataEnded: 0 };
    expect(formatSummary(r)).toContain(
      "Small sample: 4 trade(s), 1 of them still open at the end; treat trade statistics with caution.",
    );
    m.trades = 0;
    r.trades = { closed: 0, openAtEnd: 0, dataEnded: 0 };
    expect(formatSummary(r)).toContain("No trades: the trade statistics are n/a.");
    expect(formatSummary(r)).not.toContain("Small sample");
    m.trades = 30;
    r.trades = { closed: 30, openAtEnd: 0, dataEnded: 0 };
    expect(formatSummary(r)).not.toContain("Small sample");
  });
});

describe("formatMetric", () => {
  it("rounds to the metric's decimals, separates thousands and never prints -0", () => {
    expect(formatMetric("equityFinal", 54101.36919)).toBe("54,101.37");
    expect(formatMetric("beta", 0.123456)).toBe("0.1235");
    expect(formatMetric("trades", 33)).toBe("33");
    expect(formatMetric("returnPct", -0.001)).toBe("0.00");
    expect(formatMetric("returnPct", null)).toBe("n/a");
    expect(formatMetric("returnPct", Number.NaN)).toBe("n/a");
    expect(formatMetric("start", "2004-08-19")).toBe("2004-08-19");
    // A key newer than this build shows as itself, with four decimals.
    expect(formatMetric("someNewMetric", 1.23456789)).toBe("1.2346");
  });
});

describe("the order counts", () => {
  it("separate thousands, as the metrics do", async () => {
    const r = await googResult();
    Object.assign(r.orders, {
      submitted: 1_234_567,
      filled: 1_200_000,
      rejected: 0,
      cancelled: 34_567,
      expired: 0,
    });
    expect(formatSummary(r)).toContain(
      "Orders: 1,234,567 submitted, 1,200,000 filled, 0 rejected, 34,567 cancelled, 0 expired",
    );
  });
});
