import { describe, expect, it } from "vitest";
import {
  COMPARED_METRICS,
  DIFF_METRICS,
  HEADLINE_METRICS,
  METRIC_FORMATS,
} from "../../src/metrics/metric-labels.js";
import { diffMetrics } from "../../src/report/metrics-diff.js";
import type { ResultFile } from "../../src/rundir/run-record.js";

const headlineKeys = HEADLINE_METRICS.map(([key]) => key);

describe("the metric registry", () => {
  it("the summary's headline rows are these metrics, in reading order", () => {
    expect(headlineKeys).toEqual([
      "returnPct",
      "returnAnnPct",
      "volatilityAnnPct",
      "sharpe",
      "sortino",
      "maxDrawdownPct",
      "exposurePct",
      "trades",
      "winRatePct",
      "profitFactor",
      "commissions",
      "equityFinal",
    ]);
  });

  it("diff compares every headline metric and the ones marked diff, in the same order", () => {
    expect(DIFF_METRICS).toEqual([
      "returnPct",
      "buyHoldReturnPct",
      "returnAnnPct",
      "volatilityAnnPct",
      "sharpe",
      "sortino",
      "calmar",
      "maxDrawdownPct",
      "exposurePct",
      "trades",
      "winRatePct",
      "profitFactor",
      "avgTradePct",
      "commissions",
      "equityFinal",
    ]);
    // diff's rows are the registry's list, whatever the runs hold.
    const result = (metrics: Record<string, number>) => ({ metrics }) as unknown as ResultFile;
    const rows = diffMetrics(result({ returnPct: 1, calmar: 2 }), result({ returnPct: 3 }));
    expect(rows.map((r) => r.key)).toEqual(DIFF_METRICS);
    expect(rows.find((r) => r.key === "returnPct")?.delta).toBe(2);
    expect(rows.find((r) => r.key === "calmar")?.delta).toBeNull();
  });

  it("compare's columns are numbered once each, from 0, with no gap", () => {
    const numbers = COMPARED_METRICS.map((k) => (METRIC_FORMATS[k] as { compare: number }).compare);
    expect(numbers).toEqual(numbers.map((_, i) => i));
    expect(COMPARED_METRICS[0]).toBe("equityFinal");
  });
});
