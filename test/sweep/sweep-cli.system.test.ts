import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, readJson, runDirs } from "../helpers/cli.js";
import {
  LONG_SHORT as BASE,
  resultLines,
  SMA_STRATEGY as STRATEGY,
  workWithGoog,
} from "./sweep-kit.js";

// The acceptance grid: the bundled sma-crossover on GOOG, long/short with a 0.2 % commission,
// fast 5..50 step 5, slow 10..200 step 10, fast < slow: 175 combinations, Sharpe maximized.
const GRID = ["--grid", "fast=5:50:5", "--grid", "slow=10:200:10", "--constraint", "fast < slow"];

interface Line {
  index: number;
  settings: Record<string, number>;
  status: string;
  error: { type: string; message: string } | null;
  metrics: Record<string, unknown> | null;
}

const work = workWithGoog("agenticbt-sweep-");
const runs = path.join(work, "runs");
const sweeps = path.join(work, "sweeps");
let dir: string;
let lines: Line[];
let summary: Record<string, unknown> & {
  best: { index: number; settings: Record<string, number>; value: number };
  topRuns: { index: number; runId: string }[];
};

beforeAll(() => {
  const r = cli(
    [
      "sweep",
      STRATEGY,
      "--data",
      "GOOG.csv",
      ...BASE,
      ...GRID,
      "--maximize",
      "sharpe",
      "--top",
      "1",
      "--runs-dir",
      runs,
      "-q",
    ],
    work,
  );
  expect(r.status, r.stderr).toBe(0);
  const ids = fs.readdirSync(sweeps);
  expect(ids).toHaveLength(1);
  dir = path.join(sweeps, ids[0] as string);
  lines = resultLines<Line>(dir);
  summary = readJson(path.join(dir, "summary.json")) as typeof summary;
}, 120_000);

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe("agenticbt sweep on the GOOG grid", () => {
  it("runs the 175 combinations once each and finds fast 10, slow 20", () => {
    expect(lines).toHaveLength(175);
    expect(new Set(lines.map((l) => l.index)).size).toBe(175);
    expect(lines.every((l) => l.status === "completed" && l.error === null)).toBe(true);
    expect(summary.total).toBe(175);
    expect(summary.status).toBe("completed");
    expect(summary.best.settings).toEqual({ fast: 10, slow: 20 });
    const sharpes = lines.map((l) => l.metrics?.sharpe as number);
    expect(summary.best.value).toBe(Math.max(...sharpes));
    expect(fs.readdirSync(dir).sort()).toEqual(
      ["config.json", "curves.f64", "report.html", "results.jsonl", "summary.json"].sort(),
    );
  });

  it("gives each combination the metrics of a separate `agenticbt run` (a sample and the best)", () => {
    const sample = lines.filter((l) => l.index % 17 === 0 || l.index === summary.best.index);
    expect(sample.length).toBeGreaterThanOrEqual(11);
    for (const line of sample) {
      const { fast, slow } = line.settings;
      const r = cli(
        [
          "run",
          STRATEGY,
          "--data",
          "GOOG.csv",
          ...BASE,
          "--param",
          `fast=${fast}`,
          "--param",
          `slow=${slow}`,
          "--runs-dir",
          path.join(work, "single"),
          "--json",
        ],
        work,
      );
      expect(r.status, r.stderr).toBe(0);
      const result = JSON.parse(r.stdout) as { metrics: Record<string, unknown> };
      const keys = Object.keys(result.metrics);
      expect(keys.length).toBeGreaterThan(30);
      expect(Object.keys(line.metrics ?? {})).toEqual(keys);
      for (const k of keys)
        expect(line.metrics?.[k], `${k} of fast=${fast} slow=${slow}`).toBe(result.metrics[k]);
    }
  }, 300_000);

  it("writes the best combination's full run directory with --top 1, identical in its metrics", () => {
    expect(summary.topRuns).toHaveLength(1);
    const top = summary.topRuns[0] as { index: number; runId: string };
    expect(top.index).toBe(summary.best.index);
    const runDir = runDirs(runs).find((d) => path.basename(d) === top.runId) as string;
    const result = readJson(path.join(runDir, "result.json")) as {
      metrics: Record<string, unknown>;
      strategy: { params: unknown };
    };
    expect(result.strategy.params).toEqual({ fast: 10, slow: 20, longShort: true });
    const best = lines.find((l) => l.index === top.index) as Line;
    expect(result.metrics).toEqual(best.metrics);
    for (const f of ["equity.csv", "trades.csv", "orders.jsonl", "report.html"])
      expect(fs.existsSync(path.join(runDir, f)), f).toBe(true);
  });
});

describe("combinations that fail", () => {
  it("are recorded with their error while the sweep goes on", () => {
    // sma-crossover refuses fast >= slow in its init.
    const r = cli(
      [
        "sweep",
        STRATEGY,
        "--data",
        "GOOG.csv",
        "--grid",
        "fast=10,30",
        "--grid",
        "slow=20,50",
        "--runs-dir",
        path.join(work, "f1", "runs"),
        "-q",
      ],
      work,
    );
    expect(r.status, r.stderr).toBe(0);
    const d = path.join(
      work,
      "f1",
      "sweeps",
      fs.readdirSync(path.join(work, "f1", "sweeps"))[0] as string,
    );
    const out = resultLines<Line>(d).sort((a, b) => a.index - b.index);
    expect(out.map((l) => [l.settings.fast, l.settings.slow, l.status])).toEqual([
      [10, 20, "completed"],
      [10, 50, "completed"],
      [30, 20, "failed"],
      [30, 50, "completed"],
    ]);
    expect(out[2]?.error?.message).toMatch(/needs 1 <= fast < slow \(got fast=30, slow=20\)/);
    expect(out[2]?.metrics).toBeNull();
  }, 60_000);

  it("exit 1 when every combination failed", () => {
    const r = cli(
      [
        "sweep",
        STRATEGY,
        "--data",
        "GOOG.csv",
        "--grid",
        "fast=30,40",
        "--grid",
        "slow=20",
        "--runs-dir",
        path.join(work, "f2", "runs"),
      ],
      work,
    );
    expect(r.status, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/2 of 2 combinations, 2 failed/);
  }, 60_000);

  it("exit 2 on a bad constraint or axis, before any sweep directory exists", () => {
    const root = path.join(work, "f3", "runs");
    const bad = cli(
      [
        "sweep",
        STRATEGY,
        "--data",
        "GOOG.csv",
        "--grid",
        "fast=5,10",
        "--constraint",
        "fats < 3",
        "--runs-dir",
        root,
      ],
      work,
    );
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/"fats" at column 1 is not an axis \(did you mean fast\?\)/);
    const axis = cli(
      ["sweep", STRATEGY, "--data", "GOOG.csv", "--grid", "commision=0,0.1", "--runs-dir", root],
      work,
    );
    expect(axis.status).toBe(2);
    expect(axis.stderr).toMatch(/did you mean commission\?/);
    const range = cli(
      [
        "sweep",
        STRATEGY,
        "--data",
        "GOOG.csv",
        "--grid",
        "commission=0:0.9:0.3",
        "--runs-dir",
        root,
      ],
      work,
    );
    expect(range.status).toBe(2);
    expect(range.stderr).toMatch(
      /--grid commission 0.6 is not valid: it must be a number >= 0 and <= 0.5/,
    );
    for (const [flags, message] of [
      [["--jobs", "0"], /--jobs "0" is not valid: it must be a whole number >= 1 and <= 256/],
      [["--method", "walk"], /--method "walk": use grid or random/],
      [["--top", "-1"], /--top "-1" is not valid/],
      [["--method", "random"], /--method random needs --max-tries <n>/],
      [["--maximize", "sharpe", "--minimize", "trades"], /--maximize and --minimize both given/],
      [["--minimize", "sharp"], /--minimize "sharp" is not a metric \(did you mean sharpe\?\)/],
    ] as const) {
      const r = cli(
        [
          "sweep",
          STRATEGY,
          "--data",
          "GOOG.csv",
          "--grid",
          "fast=5,10",
          ...flags,
          "--runs-dir",
          root,
        ],
        work,
      );
      expect(r.status, flags.join(" ")).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(fs.existsSync(path.join(work, "f3", "sweeps"))).toBe(false);
  }, 60_000);
});
