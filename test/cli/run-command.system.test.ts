import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, DATA, ROOT, readJson, runArgs, runDirs, tempDir } from "../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

interface Result {
  schemaVersion: number;
  status: string;
  id: string;
  error: { type: string; message: string } | null;
  data: {
    symbol: string;
    file: string;
    sha256: string;
    bars: number;
    first: string;
    last: string;
  }[];
  period: {
    start: string;
    end: string;
    bars: number;
    warmupBars: number;
    requested: { start: string; end: string; bars: number };
  };
  metrics: Record<string, number | string | null>;
  nullReasons: Record<string, string>;
  benchmark: { metrics: Record<string, number | null> };
  trades: { closed: number; openAtEnd: number };
  timings: Record<string, number>;
}

const sha256 = (file: string) => createHash("sha256").update(fs.readFileSync(file)).digest("hex");

describe("agenticbt run", () => {
  it("runs the SMA crossover on bundled GOOG data and writes a complete run directory", () => {
    const runs = path.join(work, "runs-a");
    const r = cli(
      [
        "run",
        path.join(ROOT, "strategies/sma-crossover.ts"),
        "--data",
        path.join(DATA, "GOOG.csv"),
        "--commission",
        "0.001",
        "--runs-dir",
        runs,
      ],
      work,
    );
    expect(r.status, r.stderr).toBe(0);
    const [dir] = runDirs(runs);
    expect(dir).toBeDefined();
    const files = fs.readdirSync(dir as string).sort();
    for (const f of [
      "config.json",
      "playbook.md",
      "journal",
      "notes",
      "reviews",
      "decisions.jsonl",
      "equity.csv",
      "trades.csv",
      "orders.jsonl",
      "result.json",
    ]) {
      expect(files).toContain(f);
    }
    const result = readJson<Result>(path.join(dir as string, "result.json"));
    expect(result.schemaVersion).toBe(1);
    expect(result.status).toBe("completed");
    expect(result.data[0]?.sha256).toBe(sha256(path.join(DATA, "GOOG.csv")));
    expect(result.data[0]?.bars).toBe(2148);
    expect(result.period).toEqual({
      start: "2004-08-19",
      end: "2013-03-01",
      bars: 2148,
      warmupBars: 0,
      requested: { start: "2004-08-19", end: "2013-03-01", bars: 2148 },
    });
    // The table prints strategy vs buy-and-hold and the run path.
    expect(r.stdout).toContain("Buy & hold");
    expect(r.stdout).toContain(result.id);
    // It ends saying where its report is.
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe(
      `Report ${path.join("runs-a", result.id, "report.html")}`,
    );
    expect(fs.existsSync(path.join(dir as string, "report.html"))).toBe(true);
    // Buy-and-hold of GOOG is last close / first close - 1, read straight from the file.
    const lines = fs.readFileSync(path.join(DATA, "GOOG.csv"), "utf8").trim().split("\n");
    const first = Number(lines[1]?.split(",")[4]);
    const last = Number(lines[lines.length - 1]?.split(",")[4]);
    expect(result.metrics.buyHoldReturnPct).toBeCloseTo((last / first - 1) * 100, 9);
    // equity.csv has one row per bar, and its last equity is the final equity.
    const equity = fs
      .readFileSync(path.join(dir as string, "equity.csv"), "utf8")
      .trim()
      .split("\n");
    expect(equity.length).toBe(2148 + 1);
    expect(Number(equity[equity.length - 1]?.split(",")[1])).toBeCloseTo(
      result.metrics.equityFinal as number,
      9,
    );
    // trades.csv rows = closed + open-at-end trades; the metric counts them all.
    const trades = fs
      .readFileSync(path.join(dir as string, "trades.csv"), "utf8")
      .trim()
      .split("\n");
    expect(trades.length - 1).toBe(result.trades.closed + result.trades.openAtEnd);
    expect(result.metrics.trades).toBe(result.trades.closed + result.trades.openAtEnd);
    // No Infinity/NaN anywhere; every null metric has a reason.
    const text = fs.readFileSync(path.join(dir as string, "result.json"), "utf8");
    expect(text).not.toMatch(/Infinity|NaN/);
    for (const [k, v] of Object.entries(result.metrics))
      if (v === null) expect(result.nullReasons[k], k).toBeTruthy();
  });

  it("--json prints result.json alone on stdout", () => {
    const runs = path.join(work, "runs-json");
    const r = cli(
      runArgs("strategies/buy-and-hold.ts", path.join(DATA, "2006-day-001.txt"), runs, "--json"),
      work,
    );
    expect(r.status, r.stderr).toBe(0);
    const printed = JSON.parse(r.stdout) as Result;
    const [dir] = runDirs(runs);
    expect(printed).toEqual(readJson(path.join(dir as string, "result.json")));
    // Where the report is goes to stderr, stdout stays result.json's.
    expect(r.stderr.trimEnd().split("\n").at(-1)).toBe(
      `Report ${path.join("runs-json", printed.id, "report.html")}`,
    );
  });

  it("passes strategy parameters and reports an unknown one as bad usage (exit 2)", () => {
    const runs = path.join(work, "runs-param");
    const ok = cli(
      [
        "run",
        path.join(ROOT, "strategies/sma-crossover.ts"),
        "--data",
        path.join(DATA, "GOOG.csv"),
        "--param",
        "fast=5",
        "--param",
        "slow=15",
        "--runs-dir",
        runs,
        "--json",
      ],
      work,
    );
    expect(ok.status, ok.stderr).toBe(0);
    const config = readJson<{ params: Record<string, unknown> }>(
      path.join(runDirs(runs)[0] as string, "config.json"),
    );
    expect(config.params).toEqual({ fast: 5, slow: 15, longShort: false });
    const bad = cli(
      [
        "run",
        path.join(ROOT, "strategies/sma-crossover.ts"),
        "--data",
        path.join(DATA, "GOOG.csv"),
        "--param",
        "fats=5",
        "--runs-dir",
        runs,
      ],
      work,
    );
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('Unknown parameter "fats"');
    expect(bad.stderr).toContain("fast, slow, longShort");
  });

  it("rejects a malformed CSV with exit code 2, naming file and line, before creating a run", () => {
    const csv = path.join(work, "bad.csv");
    fs.writeFileSync(
      csv,
      "Date,Open,High,Low,Close,Volume\n2020-01-02,10,11,9,10.5,100\n2020-01-03,10,abc,9,10.5,100\n",
    );
    const runs = path.join(work, "runs-bad");
    const r = cli(runArgs("strategies/buy-and-hold.ts", csv, runs), work);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(csv);
    expect(r.stderr).toMatch(/:3\b/);
    expect(r.stderr).toContain("High");
    expect(runDirs(runs)).toEqual([]);
  });

  it("rejects bad options and a file that is not a strategy with exit code 2", () => {
    const goog = path.join(DATA, "GOOG.csv");
    const cash = cli(
      ["run", path.join(ROOT, "strategies/buy-and-hold.ts"), "--data", goog, "--cash", "-5"],
      work,
    );
    expect(cash.status).toBe(2);
    expect(cash.stderr).toContain("--cash");
    const missing = cli(["run", path.join(ROOT, "strategies/buy-and-hold.ts")], work);
    expect(missing.status).toBe(2);
    const notStrategy = cli(
      ["run", path.join(ROOT, "test/fixtures/strategies/not-a-strategy.ts"), "--data", goog],
      work,
    );
    expect(notStrategy.status).toBe(2);
    expect(notStrategy.stderr).toContain("does not default-export a strategy");
  });

  it("a bad data file is reported before a bad strategy, though the strategy starts loading first", () => {
    const bad = path.join(work, "both-bad.csv");
    fs.writeFileSync(bad, "date,open,high,low,close\n2024-01-02,1,2,0.5,oops\n");
    const r = cli(
      ["run", path.join(ROOT, "test/fixtures/strategies/not-a-strategy.ts"), "--data", bad],
      work,
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(bad);
    expect(r.stderr).not.toContain("does not default-export a strategy");
    // The strategy's rejected load is handled, not reported as an unhandled rejection.
    expect(r.stderr).not.toMatch(/unhandled|UnhandledPromiseRejection/i);
  });

  it("rejects recall options that cannot work with exit code 2, before creating a run", () => {
    const runs = path.join(work, "runs-bad-recall");
    const base = ["run", path.join(ROOT, "strategies/buy-and-hold.ts"), "--data"];
    const goog = path.join(DATA, "GOOG.csv");
    const cases: [string[], string][] = [
      [["--recall-weights", "0.5"], "--recall-weights takes two numbers"],
      [["--recall-weights", "0.5,0.5,1"], "--recall-weights takes two numbers"],
      [["--recall-weights", "2,0.5"], "--recall-weights"],
      [["--recall-min-score", "1.5"], "--recall-min-score"],
      [["--recall-half-life", "0"], "--recall-half-life"],
      [["--embed-base-url", "http://127.0.0.1:9/v1"], "--embed-model is not"],
      [["--embed-model", "m", "--embed-base-url", "ftp://x"], "is not an http(s) URL"],
    ];
    for (const [flags, message] of cases) {
      const r = cli([...base, goog, ...flags, "--runs-dir", runs], work);
      expect(r.status, flags.join(" ")).toBe(2);
      expect(r.stderr, flags.join(" ")).toContain(message);
    }
    expect(fs.existsSync(runs)).toBe(false);
  });

  it("--from/--to window the run; bars before --from are history, bars after --to are never loaded", () => {
    const runs = path.join(work, "runs-window");
    const r = cli(
      [
        "run",
        path.join(ROOT, "strategies/sma-crossover.ts"),
        "--data",
        path.join(DATA, "GOOG.csv"),
        "--from",
        "2010-01-01",
        "--to",
        "2010-12-31",
        "--runs-dir",
        runs,
        "--json",
      ],
      work,
    );
    expect(r.status, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as Result;
    expect(result.period.start).toBe("2010-01-04");
    expect(result.period.end).toBe("2010-12-31");
    expect(result.period.bars).toBe(252);
    // History: the 2004-08-19..2009-12-31 bars before the window.
    const lines = fs.readFileSync(path.join(DATA, "GOOG.csv"), "utf8").trim().split("\n").slice(1);
    expect(result.period.warmupBars).toBe(
      lines.filter((l) => (l.split(",")[0] as string) < "2010-01-01").length,
    );
  });

  it("--help shows examples", () => {
    const r = cli(["run", "--help"], work);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("Examples:");
    expect(r.stdout).toContain("--trade-on-close");
  });
});
