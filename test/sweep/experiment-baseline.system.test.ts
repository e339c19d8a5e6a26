import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, cliAsync, DATA, ROOT, readJson, tempDir } from "../helpers/cli.js";
import { startScriptedServer } from "../helpers/scripted-openai-server.js";
import { seededTrader } from "../helpers/seeded-trader.js";

// --baseline: a code strategy run once on each window beside the LLM cells, compared with each
// of them on the window, and replayed with them.

const work = tempDir("agenticbt-experiment-baseline-");
const server = await startScriptedServer((req) => seededTrader(req));
afterAll(async () => {
  await server.close();
  fs.rmSync(work, { recursive: true, force: true });
});
fs.copyFileSync(path.join(DATA, "GOOG.csv"), path.join(work, "GOOG.csv"));
fs.mkdirSync(path.join(work, "strategies"));
fs.copyFileSync(
  path.join(ROOT, "strategies", "sma-crossover.ts"),
  path.join(work, "strategies", "sma-crossover.ts"),
);
const STRATEGY = path.join(ROOT, "strategies", "rsi-mean-reversion.md");
const WINDOWS = [
  ["2012-01-01", "2012-06-30"],
  ["2012-07-01", "2012-12-31"],
] as const;
const RUNS = path.join(work, "runs");
const ENV = { ...process.env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "test" };
const BASELINE = "strategies/sma-crossover.ts";

/** The CLI, asynchronously: the scripted server answers from this process's event loop. */
function run(args: string[]) {
  const child = cliAsync(args, work, ENV);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on("exit", (status) => resolve({ status, stdout, stderr })),
  );
}

interface Line {
  key: string;
  cell: number;
  window: number;
  repeat: number;
  runId: string;
  status: string;
  metrics: Record<string, number | null>;
}
interface Comparison {
  cell: string;
  baseline: string;
  pairs: number;
  difference: { mean: { value: number | null } };
}
interface Summary {
  total: number;
  cells: { label: string; runs: number; metrics: Record<string, { mean: { value: number } }> }[];
  comparisons: Record<string, Comparison[]>;
  codeBaseline: { label: string; comparisons: Record<string, Comparison[]>; sentences: string[] };
  deflatedSharpe: { trials: number; label: string };
}

const sweepDirs = () =>
  fs
    .readdirSync(path.join(work, "sweeps"))
    .sort()
    .map((d) => path.join(work, "sweeps", d));
const linesOf = (dir: string): Line[] =>
  fs
    .readFileSync(path.join(dir, "results.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Line);

describe("an experiment with --baseline strategies/x.ts", async () => {
  const first = await run([
    "sweep",
    STRATEGY,
    "--data",
    "GOOG.csv",
    "--grid",
    "memory=none,files",
    "--windows",
    WINDOWS.map((w) => w.join(":")).join(","),
    "--repeats",
    "2",
    "--every",
    "10",
    "--baseline",
    BASELINE,
    "--yes",
    "--runs-dir",
    RUNS,
  ]);
  const [dir] = sweepDirs();
  const lines = linesOf(dir as string);
  const summary = readJson<Summary>(path.join(dir as string, "summary.json"));

  it("runs the code strategy once per window, as agenticbt run would", () => {
    expect(first.status, first.stderr).toBe(0);
    // 2 cells × 2 windows × 2 repeats, and 2 runs of the code strategy.
    expect(lines).toHaveLength(10);
    expect(summary.total).toBe(10);
    const code = lines.filter((l) => l.cell === 2);
    expect(code.map((l) => l.key)).toEqual(["c2-w0-r1", "c2-w1-r1"]);
    for (const l of code) {
      expect(l.status).toBe("completed");
      const [from, to] = WINDOWS[l.window] as readonly [string, string];
      const alone = cli(
        ["run", BASELINE, "--data", "GOOG.csv", "--from", from, "--to", to, "--json"],
        work,
        ENV,
      );
      expect(alone.status, alone.stderr).toBe(0);
      const metrics = (JSON.parse(alone.stdout) as { metrics: Record<string, number> }).metrics;
      expect(l.metrics.returnPct).toBe(metrics.returnPct);
      expect(l.metrics.trades).toBe(metrics.trades);
      expect(l.metrics.tokens).toBeNull();
    }
  });

  it("estimates the LLM cells' runs only: the code strategy's cost nothing", () => {
    const { estimate } = readJson<{
      estimate: { runs: number; cells: { label: string; runs: number }[] };
    }>(path.join(dir as string, "config.json"));
    expect(estimate.runs).toBe(8);
    expect(estimate.cells.map((c) => [c.label, c.runs])).toEqual([
      ["memory=none", 4],
      ["memory=files", 4],
    ]);
  });

  it("shows it as a cell and compares every LLM cell with it on the window", () => {
    expect(summary.cells.map((c) => [c.label, c.runs])).toEqual([
      ["memory=none", 4],
      ["memory=files", 4],
      [`baseline=${BASELINE}`, 2],
    ]);
    // The memory=none comparisons and the DSR's trials leave the code strategy out.
    expect(summary.comparisons.returnPct?.map((c) => c.cell)).toEqual(["memory=files"]);
    expect(summary.deflatedSharpe.trials).toBe(2);
    const vs = summary.codeBaseline.comparisons.returnPct ?? [];
    expect(vs.map((c) => [c.cell, c.baseline, c.pairs])).toEqual([
      ["memory=none (mean of 2 repeats)", `baseline=${BASELINE}`, 2],
      ["memory=files (mean of 2 repeats)", `baseline=${BASELINE}`, 2],
    ]);
    for (const [cell, c] of vs.entries()) {
      // By hand: each window's mean over the repeats minus the code run on that window.
      const d = [0, 1].map((w) => {
        const own = lines.filter((l) => l.cell === cell && l.window === w);
        const mean = own.reduce((a, l) => a + (l.metrics.returnPct as number), 0) / own.length;
        const code = lines.find((l) => l.cell === 2 && l.window === w) as Line;
        return mean - (code.metrics.returnPct as number);
      });
      expect(c.difference.mean.value).toBeCloseTo((d[0]! + d[1]!) / 2, 9);
    }
    for (const s of summary.codeBaseline.sentences) expect(first.stdout).toContain(s);
    const listed = cli(["list", "--json", "--runs-dir", RUNS], work);
    const { sweeps } = JSON.parse(listed.stdout) as {
      sweeps: { id: string; total: number; objective: string }[];
    };
    expect(sweeps.find((x) => x.id === path.basename(dir as string))).toMatchObject({
      total: 10,
      objective: "experiment: 2 cells × 2 windows × 2 repeats + a code baseline",
    });
    const page = fs.readFileSync(path.join(dir as string, "report.html"), "utf8");
    expect(page).toContain(`Against baseline=${BASELINE}`);
    // Each figure of the cells' table: mean [CI] (SD; min..max; n), here the code cell's return.
    const code = lines.filter((l) => l.cell === 2).map((l) => l.metrics.returnPct as number);
    const [low, high] = [Math.min(...code), Math.max(...code)].map((x) => x.toFixed(2));
    expect(page).toContain(`; ${low}..${high}; 2)</td>`);
  });

  it("replays the code strategy's runs with the cells', to the same figures", async () => {
    const requests = server.requests.length;
    const replay = await run(["sweep", "--replay", dir as string, "--runs-dir", RUNS]);
    expect(replay.status, replay.stderr).toBe(0);
    expect(server.requests.length).toBe(requests);
    const again = linesOf(sweepDirs().find((d) => d !== dir) as string);
    const figures = (ls: Line[]) =>
      ls.map((l) => [l.key, l.metrics.returnPct, l.metrics.turnover]).sort();
    expect(figures(again)).toEqual(figures(lines));
  });
});
