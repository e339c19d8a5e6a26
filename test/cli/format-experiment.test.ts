import { describe, expect, it } from "vitest";
import { formatExperimentSummary } from "../../src/cli/format-experiment.js";
import type {
  ExperimentConfig,
  ExperimentResultLine,
} from "../../src/sweep/experiment/experiment-dir.js";
import { experimentCells, planRuns } from "../../src/sweep/experiment/experiment-plan.js";
import { summarizeExperiment } from "../../src/sweep/experiment/experiment-summary.js";

// The summary `sweep` and `show` print: a table fitted to the terminal, the prose wrapped there,
// each on one line in a pipe; an unknown price is "unknown".

const windows = [
  { from: "2012-01-01", to: "2012-06-30" },
  { from: "2012-07-01", to: "2012-12-31" },
];
const axes = [{ name: "memory", values: ["none", "persistent"] }];
const config = {
  kind: "experiment",
  id: "x",
  name: "x",
  createdAt: "",
  axes,
  cells: experimentCells(axes).map((settings) => ({ settings, run: {} })),
  windows,
  repeats: 2,
  seed: 1,
  jobs: 1,
  budgetUsd: null,
  replayOf: null,
  total: 8,
} as unknown as ExperimentConfig;

function lines(costUsd: number | null): ExperimentResultLine[] {
  return planRuns(2, windows, 2, 1).map((p) => ({
    key: p.key,
    cell: p.cell,
    window: p.window,
    repeat: p.repeat,
    seed: p.seed,
    runId: `run-${p.key}`,
    status: "completed",
    error: null,
    metrics: {
      returnPct: p.cell + p.window - p.repeat / 2,
      sharpe: 0.5,
      maxDrawdownPct: -5,
      trades: 4,
      turnover: 1,
      tokens: 1000,
      costUsd,
    },
    buyHoldReturnPct: 10,
    calls: { network: 10, cache: 0, replay: 0 },
  }));
}

describe("formatExperimentSummary", () => {
  const s = summarizeExperiment(config, lines(0.0125), "completed", "t");

  it("fits 80 columns on a terminal: one row a cell, the sentences wrapped", () => {
    const text = formatExperimentSummary(s, "/nowhere/x", 80);
    for (const line of text.split("\n")) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(text).toMatch(/\nmemory=none +4 +/);
    expect(text).toMatch(/\nmemory=persistent +4 +/);
    expect(text).toContain("$0.0125");
    const sentence = s.sentences[0] as string;
    expect(sentence.length).toBeGreaterThan(80);
    expect(text).not.toContain(sentence);
  });

  it("keeps each sentence on one line in a pipe", () => {
    const text = formatExperimentSummary(s, "/nowhere/x", null);
    for (const sentence of s.sentences) expect(text).toContain(`\n${sentence}\n`);
  });

  it("says unknown for a cell whose price is unknown, and for the spend", () => {
    const u = summarizeExperiment(config, lines(null), "completed", "t");
    const text = formatExperimentSummary(u, "/nowhere/x", 100);
    expect(text).toMatch(/\nmemory=none .* unknown\n/);
    expect(text).toContain("Spent unknown");
    expect(text).not.toContain("$0.0000");
  });

  it("prints an experiment summarised by an earlier version (no DSR, no code baseline)", () => {
    const { deflatedSharpe: _, codeBaseline: __, ...old } = s;
    const text = formatExperimentSummary(old as typeof s, "/nowhere/x", null);
    expect(text).toContain("Experiment x (completed): 8 of 8 runs");
    expect(text).not.toContain("Deflated Sharpe");
  });
});
