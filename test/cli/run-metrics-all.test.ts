import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, ROOT, readJson, runDirs, tempDir } from "../helpers/cli.js";

const work = tempDir();
const runs = path.join(work, "runs");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const RUN = ["run", "strategies/sma-crossover.ts", "--data", "data/GOOG.csv", "--runs-dir", runs];

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
    for (const key of keys) {
      expect(
        lines.some((l) => l.startsWith(`${key} `)),
        key,
      ).toBe(true);
    }
    // Counts whole, the rest to 4 decimals, grouped like the headline table.
    const line = (k: string) => lines.find((l) => l.startsWith(`${k} `)) ?? "";
    const trades = result.metrics.trades as number;
    expect(line("trades").trim().split(/\s+/)).toEqual(["trades", String(trades)]);
    const sharpe = result.metrics.sharpe as number;
    const bench = result.benchmark.metrics.sharpe as number;
    expect(line("sharpe").trim().split(/\s+/)).toEqual([
      "sharpe",
      sharpe.toFixed(4),
      bench.toFixed(4),
    ]);
    expect(line("start").trim().split(/\s+/)).toEqual(["start", result.metrics.start]);
  });

  it("headline (the default) prints the 12 headline rows only", () => {
    const r = cli(RUN, ROOT);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Sharpe\s/m);
    expect(r.stdout).not.toMatch(/^sqn\s/m);
    expect(r.stdout).not.toMatch(/^kellyCriterion\s/m);
  });

  it("any other value is bad usage (exit 2) naming the choices, before anything runs", () => {
    const before = runDirs(runs).length;
    const r = cli([...RUN, "--metrics", "everything"], ROOT);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("Allowed choices are headline, all");
    expect(runDirs(runs).length).toBe(before);
  });
});
