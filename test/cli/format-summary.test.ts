import path from "node:path";
import { describe, expect, it } from "vitest";
import { formatSummary } from "../../src/cli/format-summary.js";
import { backtest } from "../../src/runner/backtest.js";
import type { RunResult } from "../../src/runner/run-result.js";
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
      const label = text.includes("Volatility (ann.) %")
        ? "Volatility (ann.) %"
        : "volatilityAnnPct";
      const cells = row(text, label).slice(label.length).trim().split(/\s+/);
      expect(cells).toHaveLength(2);
      expect(cells[1]).toMatch(/^273,388,204,924,721\.88(00)?$/);
    }
    // The widest cell is 22 characters ("273,388,204,924,721.88"): columns of 23.
    const text = formatSummary(r);
    expect(row(text, "Return %")).toHaveLength(22 + 23 + 23);
  });
});
