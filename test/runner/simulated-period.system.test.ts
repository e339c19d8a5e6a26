import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, cliAsync, DATA, ROOT, readJson, runDirs, tempDir } from "../helpers/cli.js";
import { barReached } from "../helpers/wait.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const GOOG = path.join(DATA, "GOOG.csv");
const REQUESTED = { start: "2004-08-19", end: "2013-03-01", bars: 2148 };

interface Result {
  status: string;
  period: Record<string, unknown>;
  metrics: { start: string; end: string; bars: number } | null;
}

const equityTimes = (dir: string) =>
  fs
    .readFileSync(path.join(dir, "equity.csv"), "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((l) => l.split(",")[0]);

describe("the period of a run is the one actually simulated", () => {
  it("a strategy that stops at bar 99: 2004-08-19 → 2005-01-10, 100 of 2148 bars", () => {
    const runs = path.join(work, "runs-stop");
    const r = cli(
      [
        "run",
        path.join(ROOT, "test/fixtures/strategies/stops-at-bar.ts"),
        "--data",
        GOOG,
        "--param",
        "stopAt=99",
        "--runs-dir",
        runs,
      ],
      work,
    );
    expect(r.status).toBe(1);
    const [dir] = runDirs(runs);
    const result = readJson<Result>(path.join(dir as string, "result.json"));
    expect(result.status).toBe("stopped");
    // GOOG.csv's 100th row is 2005-01-10: bars 0..99 were closed.
    expect(result.period).toEqual({
      start: "2004-08-19",
      end: "2005-01-10",
      bars: 100,
      warmupBars: 0,
      requested: REQUESTED,
    });
    expect(result.metrics).toMatchObject({ start: "2004-08-19", end: "2005-01-10", bars: 100 });
    expect(r.stdout.split("\n")[0]).toBe(
      "stops-at-bar on GOOG, 2004-08-19 → 2005-01-10 (100 of 2148 bars)",
    );
  });

  it("a strategy that throws at bar 50: the period ends at bar 49, the last closed", () => {
    const runs = path.join(work, "runs-throw");
    const r = cli(
      [
        "run",
        path.join(ROOT, "test/fixtures/strategies/throws-at-bar.ts"),
        "--data",
        GOOG,
        "--param",
        "failAt=50",
        "--runs-dir",
        runs,
      ],
      work,
    );
    expect(r.status).toBe(1);
    const [dir] = runDirs(runs);
    const result = readJson<Result>(path.join(dir as string, "result.json"));
    expect(result.period).toMatchObject({ start: "2004-08-19", end: "2004-10-28", bars: 50 });
    expect(result.metrics).toMatchObject({ start: "2004-08-19", end: "2004-10-28", bars: 50 });
    expect(r.stdout).toContain("throws-at-bar on GOOG, 2004-08-19 → 2004-10-28 (50 of 2148 bars)");
  });

  it("an interrupted run (SIGINT): the period ends at the last bar written to equity.csv", async () => {
    const runs = path.join(work, "runs-sigint");
    const mark = path.join(work, "sigint-mark");
    const child = cliAsync(
      [
        "run",
        path.join(ROOT, "test/fixtures/strategies/slow.ts"),
        "--data",
        GOOG,
        "--param",
        "ms=5",
        "--param",
        `mark=${mark}`,
        "--runs-dir",
        runs,
      ],
      work,
    );
    let stdout = "";
    child.stdout?.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    // Bar 0 has closed (on a loaded machine the run directory appears long before the first bar).
    await barReached(mark, 1);
    await new Promise((r) => setTimeout(r, 300));
    child.kill("SIGINT");
    await new Promise((resolve) => child.on("close", resolve));
    const [dir] = runDirs(runs);
    const result = readJson<Result>(path.join(dir as string, "result.json"));
    expect(result.status).toBe("interrupted");
    const times = equityTimes(dir as string);
    expect(times.length).toBeGreaterThan(0);
    expect(times.length).toBeLessThan(2148);
    expect(result.period).toEqual({
      start: "2004-08-19",
      end: times[times.length - 1],
      bars: times.length,
      warmupBars: 0,
      requested: REQUESTED,
    });
    expect(result.metrics).toMatchObject({
      start: "2004-08-19",
      end: times[times.length - 1],
      bars: times.length,
    });
    expect(stdout.split("\n")[0]).toBe(
      `slow on GOOG, 2004-08-19 → ${times[times.length - 1]} (${times.length} of 2148 bars)`,
    );
  }, 60_000);
});
