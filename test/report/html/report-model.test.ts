import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { brokerConfig } from "../../../src/engine/broker-config.js";
import { buildReportModel, metricRows } from "../../../src/report/html/report-model.js";
import { runBacktest } from "../../../src/runner/run-backtest.js";
import { DEFAULT_RECALL_OPTIONS, type RunConfig } from "../../../src/runner/run-config.js";
import type { RunEvent } from "../../../src/runner/run-events.js";
import { DATA, ROOT, tempDir } from "../../helpers/cli.js";
import { sliceCsv } from "../../helpers/llm-run.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

function config(file: string, name: string): RunConfig {
  return {
    strategyPath: path.join(ROOT, "strategies", "sma-crossover.ts"),
    data: [{ file }],
    broker: brokerConfig({}),
    params: {},
    from: "2005-01-01",
    to: "2005-12-31",
    name,
    runsRoot: path.join(work, "runs"),
    strict: false,
    tz: null,
    agent: null,
    presets: [],
    memoryFrom: null,
    recall: DEFAULT_RECALL_OPTIONS,
  };
}

describe("the report's data, from a run directory", () => {
  it("draws candles only over the run's window (2005: 252 bars), from the unchanged data file", async () => {
    const goog = sliceCsv(path.join(DATA, "GOOG.csv"), 600, work, "GOOG.csv");
    const result = await runBacktest(config(goog, "window"));
    const model = buildReportModel(path.join(work, "runs", result.id));
    expect(model.pricesNote).toBeNull();
    const candles = model.charts[0]?.candles;
    expect(candles?.t.length).toBe(result.period.bars);
    expect(candles?.t[0]).toBe(Date.UTC(2005, 0, 3) / 1000); // first trading day of 2005
    expect(model.curve.equity.t.length).toBe(result.period.bars);
  });

  it("says the data changed instead of drawing candles the run never saw", async () => {
    const file = sliceCsv(path.join(DATA, "GOOG.csv"), 600, work, "GOOG-edit.csv");
    const result = await runBacktest(config(file, "changed"));
    fs.appendFileSync(file, "2030-01-02,100,101,99,100,10\n");
    const model = buildReportModel(path.join(work, "runs", result.id));
    expect(model.charts).toEqual([]);
    expect(model.pricesNote).toBe(
      `No price chart: the data file ${file} changed since the run (sha256 differs).`,
    );
  });

  it("a report that cannot be written is a warning, never a failed run", async () => {
    const goog = sliceCsv(path.join(DATA, "GOOG.csv"), 600, work, "GOOG-w.csv");
    const events: RunEvent[] = [];
    const result = await runBacktest(config(goog, "blocked"), {
      onEvent: (e) => {
        events.push(e);
        // A non-empty directory where report.html goes: the atomic rename onto it fails.
        if (e.type === "run_started")
          fs.mkdirSync(path.join(e.dir, "report.html", "x"), { recursive: true });
      },
    });
    expect(result.status).toBe("completed");
    const warnings = events
      .filter((e) => e.type === "warning")
      .map((e) => (e as { message: string }).message);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^report\.html was not written \(.+\); agenticbt report \S+ retries\.$/,
    );
  });
});

describe("metricRows", () => {
  it("lists every metric of either side, with the reason for a null from either", () => {
    const result = {
      metrics: { returnPct: 5, profitFactor: null },
      nullReasons: { profitFactor: "no losing trades" },
      benchmark: {
        metrics: { returnPct: 7, sortino: null },
        nullReasons: { sortino: "no downside" },
      },
    } as unknown as Parameters<typeof metricRows>[0];
    expect(metricRows(result)).toEqual([
      { key: "returnPct", strategy: 5, benchmark: 7, note: null },
      { key: "profitFactor", strategy: null, benchmark: null, note: "no losing trades" },
      { key: "sortino", strategy: null, benchmark: null, note: "buy & hold: no downside" },
    ]);
  });
});
