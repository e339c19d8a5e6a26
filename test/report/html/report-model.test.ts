import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { brokerConfig } from "../../../src/engine/broker-config.js";
import { loadRunPrices } from "../../../src/report/html/price-data.js";
import {
  buildReportModel,
  LIMITS,
  MARKER_KIND,
  metricRows,
  reportParts,
  type SymbolChart,
} from "../../../src/report/html/report-model.js";
import { readConfig, readResult } from "../../../src/rundir/run-record.js";
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
    // The drawdown annotations measure what the metrics measure, from the same bars.
    const d = model.curve.drawdowns;
    expect(d?.maxPct).toBeCloseTo(result.metrics?.maxDrawdownPct as number, 5);
    expect(d?.longestDays).toBeCloseTo(result.metrics?.maxDrawdownDurationDays as number, 6);
    expect(d?.peak).toBeLessThan(d?.trough as number);
  });

  it("records the strategy's indicators and draws each at every candle's last bar", async () => {
    const goog = sliceCsv(path.join(DATA, "GOOG.csv"), 600, work, "GOOG-ind.csv");
    const result = await runBacktest({ ...config(goog, "indicators"), params: { fast: 5 } });
    const dir = path.join(work, "runs", result.id);
    const uses = JSON.parse(fs.readFileSync(path.join(dir, "indicators.json"), "utf8")) as unknown;
    expect(uses).toEqual([
      { symbol: "GOOG", name: "sma", params: { period: 5 }, output: "value" },
      { symbol: "GOOG", name: "sma", params: { period: 30 }, output: "value" },
    ]);
    const model = buildReportModel(dir);
    const chart = model.charts[0] as SymbolChart;
    expect(chart.overlays.map((o) => [o.label, o.onPrice])).toEqual([
      ["sma period=5", true],
      ["sma period=30", true],
    ]);
    // One candle a bar here: each value is the SMA of the five closes up to that bar.
    const prices = loadRunPrices(dir, readResult(dir), readConfig(dir));
    if ("missing" in prices) throw new Error(prices.missing);
    const s = prices.series[0] as (typeof prices.series)[number];
    const first = s.time.indexOf((chart.candles.t[0] as number) * 1000);
    const v = chart.overlays[0]?.v ?? [];
    expect(v).toHaveLength(chart.candles.t.length);
    for (const i of [0, 100, v.length - 1]) {
      const bar = first + i;
      let sum = 0;
      for (let k = bar - 4; k <= bar; k++) sum += s.close[k] as number;
      expect(v[i]).toBeCloseTo(sum / 5, 4);
    }
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

describe("a run with more rejected orders than the table shows", () => {
  it("counts them all and marks every one on its candle, from the runner's lines or the file", async () => {
    // One target weight a bar that 1 of cash never buys a unit of: every order sizes to zero.
    const bars = LIMITS.tableRows + 300;
    const rows = ["Date,Open,High,Low,Close,Volume"];
    for (let i = 0; i < bars; i++) {
      const day = new Date(Date.UTC(2000, 0, 1) + i * 86_400_000).toISOString().slice(0, 10);
      rows.push(`${day},100,101,99,100,1000`);
    }
    const file = path.join(work, "FLAT.csv");
    fs.writeFileSync(file, `${rows.join("\n")}\n`);
    const strategyPath = path.join(work, "every-bar.ts");
    fs.writeFileSync(
      strategyPath,
      'export default { name: "every-bar", onBar(ctx: { targetWeight(w: number): void }) { ctx.targetWeight(1); } };\n',
    );
    const result = await runBacktest({
      ...config(file, "rejections"),
      strategyPath,
      from: null,
      to: null,
      broker: brokerConfig({ initialCash: 1 }),
    });
    const dir = path.join(work, "runs", result.id);
    const lines = fs
      .readFileSync(path.join(dir, "orders.jsonl"), "utf8")
      .trim()
      .split("\n")
      .filter((l) => (JSON.parse(l) as { event: string }).event === "rejected");
    expect(lines.length).toBeGreaterThan(LIMITS.tableRows);
    expect(result.orders.rejected).toBe(lines.length);
    // None filled (the last order still working at the end): the run fails, its files written.
    expect(result.error?.type).toBe("AllOrdersRejected");
    expect(result.warnings.some((w) => w.startsWith(`no order filled: ${lines.length} of `))).toBe(
      true,
    );

    const fromFile = buildReportModel(dir);
    expect(fromFile.rejected.total).toBe(lines.length);
    expect(fromFile.rejected.rows).toHaveLength(LIMITS.tableRows);

    let asked = 0;
    const window = { start: result.period.start ?? null, end: result.period.end ?? null };
    const prices = loadRunPrices(dir, readResult(dir), readConfig(dir));
    const given = reportParts(dir, window, prices, {
      total: lines.length,
      line: (k) => {
        asked++;
        return lines[k] as string;
      },
    });
    expect(asked).toBe(lines.length);
    expect(given).toEqual(reportParts(dir, window, prices));
    expect(given.rejected.total).toBe(lines.length);
    expect(given.rejected.shown).toHaveLength(LIMITS.tableRows);
    expect(given.rejected.shown.at(-1)?.id).toBe(
      String((JSON.parse(lines[LIMITS.tableRows - 1] as string) as { id: number }).id),
    );
    // Every rejection is on the chart, from the first candle (bar 1's) to the last one.
    const chart = given.charts[0] as SymbolChart;
    expect(chart.candles.per).toBe(2);
    expect(chart.events).toBe(lines.length);
    expect(chart.markers.every((m) => m.k === MARKER_KIND.rejected)).toBe(true);
    expect(chart.markers.reduce((n, m) => n + m.n, 0)).toBe(lines.length);
    expect(chart.markers[0]?.i).toBe(0);
    expect(chart.markers.at(-1)?.i).toBe(chart.candles.t.length - 1);
    // Two bars a candle: two rejections on each, one on the first (bar 0 placed, bar 1 rejected).
    expect(chart.markers.map((m) => m.n).slice(0, 3)).toEqual([1, 2, 2]);
  }, 60_000);
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
