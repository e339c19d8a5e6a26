import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { computeMetrics } from "../../src/metrics/compute-metrics.js";
import { cli, ROOT, readJson, runDirs, tempDir } from "../helpers/cli.js";
import { input, utc } from "./fixtures.js";

// Pins each convention that docs/metrics.md ("Where we differ from backtesting.py") lists, with
// the number backtesting.py 0.6.6 would give beside ours, both computed by hand.

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** Two history bars before the window, then six window bars (weekdays, 2024-01-01 is a Monday). */
function writeData(): string {
  const rows = [
    ["2024-01-01", 50],
    ["2024-01-02", 60],
    ["2024-01-03", 100],
    ["2024-01-04", 102],
    ["2024-01-05", 104],
    ["2024-01-08", 106],
    ["2024-01-09", 108],
    ["2024-01-10", 110],
  ] as const;
  const lines = rows.map(([d, c]) => `${d},${c - 1},${c + 1},${c - 2},${c},1000`);
  const file = path.join(work, "X.csv");
  fs.writeFileSync(file, `Date,Open,High,Low,Close,Volume\n${lines.join("\n")}\n`);
  return file;
}

describe("metric conventions against backtesting.py", () => {
  const file = writeData();
  const runs = path.join(work, "runs");
  const r = cli(
    [
      "run",
      path.join(ROOT, "test/fixtures/strategies/conventions.ts"),
      "--data",
      file,
      "--from",
      "2024-01-03",
      "--cash",
      "1000",
      "--runs-dir",
      runs,
      "--json",
      "-q",
    ],
    work,
  );
  const result = JSON.parse(r.stdout) as { metrics: Record<string, number | null> };
  const m = result.metrics;

  it("runs", () => {
    expect(r.status, r.stderr).toBe(0);
  });

  it("exposure counts the bars at whose close a position is open: the entry bar, not the exit bar", () => {
    // Window: 01-03 … 01-10 (6 bars). Buy fills at 01-04's open, the close at 01-08's open, the
    // second buy at 01-09's open. Open at the close: 01-04, 01-05, 01-09, 01-10 → 4 / 6.
    // backtesting.py: closed trade bars 01-04..01-08 inclusive (3), open trade left out → 3 / 6.
    expect(m.exposurePct).toBeCloseTo((4 / 6) * 100, 10);
    expect(m.exposurePct).not.toBeCloseTo(50, 5);
  });

  it("counts a position open at the end as a trade valued at the last close", () => {
    // Round trip: bought at 01-04's open 101, sold at 01-08's open 105 → +4. Open trade: bought at
    // 01-09's open 107, valued at the last close 110 → +3. backtesting.py (finalize_trades=False): 1 trade.
    expect(m.trades).toBe(2);
    const csv = fs.readFileSync(path.join(runDirs(runs)[0] as string, "trades.csv"), "utf8");
    const [header, ...rows] = csv.trim().split("\n");
    const cols = (header as string).split(",");
    const pnl = rows.map((row) => Number(row.split(",")[cols.indexOf("pnl")]));
    const openAtEnd = rows.map((row) => row.split(",")[cols.indexOf("open_at_end")]);
    expect(pnl).toEqual([4, 3]);
    expect(openAtEnd).toEqual(["false", "true"]);
    expect(m.equityFinal).toBe(1007);
  });

  it("starts buy & hold at the window's first close, not before it", () => {
    // 110 / 100 − 1, not 110 / 50 − 1 (the file's first close).
    expect(m.buyHoldReturnPct).toBeCloseTo(10, 10);
    const summary = readJson<{ period: { start: string } }>(
      path.join(runDirs(runs)[0] as string, "result.json"),
    );
    expect(summary.period.start.startsWith("2024-01-03")).toBe(true);
  });
});

describe("CAGR", () => {
  it("counts calendar years, not days / 365.25", () => {
    const times = Float64Array.from([utc("2020-01-01T00:00:00"), utc("2022-01-01T00:00:00")]);
    const { metrics } = computeMetrics(input(times, [100, 200]));
    // Exactly 2 calendar years: √2 − 1. backtesting.py: 2^(365.25 / 731) − 1.
    expect(metrics.cagrPct).toBeCloseTo((Math.SQRT2 - 1) * 100, 10);
    expect((2 ** (365.25 / 731) - 1) * 100).toBeCloseTo(41.388, 3);
    expect(metrics.cagrPct).not.toBeCloseTo(41.388, 3);
  });
});
