import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { metricFormat } from "../../src/metrics/metric-labels.js";
import { cli, ROOT, readJson, runArgs, runDirs, tempDir } from "../helpers/cli.js";

const work = tempDir();
const runs = path.join(work, "runs");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const RUN = runArgs("strategies/sma-crossover.ts", "data/GOOG.csv", runs);

describe("run --metrics", () => {
  it("all: the summary prints every metric of result.json, the benchmark's beside", () => {
    const r = cli([...RUN, "--metrics", "all"], ROOT);
    expect(r.status, r.stderr).toBe(0);
    const [dir = ""] = runDirs(runs);
    const result = readJson<{
      metrics: Record<string, unknown>;
      benchmark: { metrics: Record<string, unknown> };
    }>(path.join(dir, "result.json"));
    const lines = r.stdout.split("\n");
    const keys = Object.keys(result.metrics);
    expect(keys.length).toBeGreaterThan(30);
    // Each by its name for people (no camelCase key), from the one catalogue of labels.
    for (const key of keys) {
      const { label } = metricFormat(key);
      expect(label, key).not.toBe(key);
      expect(
        lines.some((l) => l.startsWith(`${label} `)),
        key,
      ).toBe(true);
      expect(lines.some((l) => l.startsWith(`${key} `))).toBe(false);
    }
    // Each metric with its decimals, grouped like the headline table.
    const line = (label: string) =>
      (lines.find((l) => l.startsWith(`${label} `)) ?? "").trim().split(/\s{2,}/);
    const trades = result.metrics.trades as number;
    expect(line("Trades")).toEqual(["Trades", String(trades)]);
    const sharpe = result.metrics.sharpe as number;
    const bench = result.benchmark.metrics.sharpe as number;
    expect(line("Sharpe")).toEqual(["Sharpe", sharpe.toFixed(2), bench.toFixed(2)]);
    const beta = result.metrics.beta as number;
    expect(line("Beta")).toEqual(["Beta", beta.toFixed(4)]);
    expect(line("Start")).toEqual(["Start", result.metrics.start]);
  });

  it("headline (the default) prints the 12 headline rows only", () => {
    const r = cli(RUN, ROOT);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Sharpe\s/m);
    expect(r.stdout).not.toMatch(/^SQN\s/m);
    expect(r.stdout).not.toMatch(/^Kelly criterion\s/m);
  });

  it("any other value is bad usage (exit 2) naming the choices, before anything runs", () => {
    const before = runDirs(runs).length;
    const r = cli([...RUN, "--metrics", "everything"], ROOT);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--metrics "everything": use headline or all.');
    expect(runDirs(runs).length).toBe(before);
  });
});
