import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, cliAsync, DATA, ROOT, readJson, tempDir } from "../helpers/cli.js";
import { startScriptedServer } from "../helpers/scripted-openai-server.js";
import { seededTrader } from "../helpers/seeded-trader.js";

// What an LLM experiment refuses (exit 2, before any run), and rolling windows.

const work = tempDir("agenticbt-experiment-usage-");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const STRATEGY = path.join(ROOT, "strategies", "rsi-mean-reversion.md");
const GOOG = path.join(DATA, "GOOG.csv");
const WINDOW = ["--windows", "2012-01-01:2012-06-30"];
const sweeps = path.join(work, "sweeps");

describe("an LLM experiment's usage errors", () => {
  it.each([
    [["--grid", "bogus=1,2", ...WINDOW], "--grid bogus"],
    [["--grid", "from=2012-01-01", ...WINDOW], "use --windows"],
    [["--grid", "memory=none,none", ...WINDOW], "names a value twice"],
    [["--grid", "memory=none,nothing", ...WINDOW], "is not a memory system"],
    [
      ["--grid", "memory=none,files", "--constraint", "x < 1", ...WINDOW],
      "--constraint is for code sweeps",
    ],
    [["--grid", "memory=none,files", "--top", "2", ...WINDOW], "--top are for code sweeps"],
    [["--grid", "memory=none,files"], "needs its windows"],
    [
      ["--grid", "memory=none,files", "--windows", "2012-06-30:2012-01-01"],
      "ends before it starts",
    ],
    [["--grid", "strategy=strategies/sma-crossover.ts", ...WINDOW], "is a code strategy"],
    [["--grid", "memory=files", ...WINDOW, "--budget-usd", "0"], "--budget-usd"],
    [
      ["--grid", "memory=none,files", ...WINDOW, "--baseline", "strategies/price-action.md"],
      "is an LLM strategy: the baseline is a code strategy",
    ],
    [
      ["--grid", "memory=none,files", ...WINDOW, "--baseline", "strategies/nothing.ts"],
      "--baseline strategies/nothing.ts: no such file",
    ],
  ])("refuses %j with exit 2", (args, message) => {
    const strategyArgs = args[1]?.startsWith("strategy=") ? [] : [STRATEGY];
    const r = cli(
      ["sweep", ...strategyArgs, "--data", GOOG, ...args, "--runs-dir", path.join(work, "runs")],
      ROOT,
    );
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(message);
    expect(fs.existsSync(sweeps) ? fs.readdirSync(sweeps) : []).toEqual([]);
  });

  it("refuses --windows and --budget-usd for a code sweep", () => {
    const r = cli(
      [
        "sweep",
        path.join(ROOT, "strategies", "sma-crossover.ts"),
        "--data",
        GOOG,
        "--grid",
        "fast=5,10",
        ...WINDOW,
      ],
      ROOT,
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("--windows is for LLM experiments");
    const b = cli(
      [
        "sweep",
        path.join(ROOT, "strategies", "sma-crossover.ts"),
        "--data",
        GOOG,
        "--grid",
        "fast=5,10",
        "--baseline",
        "strategies/buy-and-hold.ts",
      ],
      ROOT,
    );
    expect(b.status).toBe(2);
    expect(b.stderr).toContain("--baseline is for LLM experiments");
  });

  it("refuses --replay of something that is no experiment", () => {
    const r = cli(
      ["sweep", "--replay", "nothing-here", "--runs-dir", path.join(work, "runs")],
      ROOT,
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("names no LLM experiment");
  });
});

const ROLLING = [
  "sweep",
  STRATEGY,
  "--data",
  GOOG,
  "--from",
  "2012-01-01",
  "--to",
  "2012-12-31",
  "--windows",
  "rolling:3m",
  "--every",
  "20",
  "--memory",
  "none",
  "--no-cache",
  "-q",
  "--yes",
];

async function experiment(root: string, ...more: string[]) {
  const server = await startScriptedServer((req) => seededTrader(req));
  const child = cliAsync([...ROLLING, "--runs-dir", path.join(work, root, "runs"), ...more], ROOT, {
    ...process.env,
    OPENAI_BASE_URL: server.url,
    OPENAI_API_KEY: "test",
  });
  let stdout = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  await server.close();
  const sweepsRoot = path.join(work, root, "sweeps");
  return { code, stdout, dir: path.join(sweepsRoot, fs.readdirSync(sweepsRoot)[0] as string) };
}

interface Summary {
  done: number;
  status: string;
  buyAndHold: unknown[];
  budget: { usd: number | null; spentUsd: number | null; stopped: string | null };
}
const costsOf = (dir: string) =>
  fs
    .readFileSync(path.join(dir, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => (JSON.parse(l) as { metrics: { costUsd: number } }).metrics.costUsd);

describe("--windows rolling:3m, and --budget-usd", async () => {
  const { code, dir } = await experiment("rolling");

  it("runs the four quarters of 2012, one run each", () => {
    expect(code).toBe(0);
    const config = readJson<{ windows: { from: string; to: string }[]; total: number }>(
      path.join(dir, "config.json"),
    );
    expect(config.windows).toEqual([
      { from: "2012-01-01", to: "2012-03-31" },
      { from: "2012-04-01", to: "2012-06-30" },
      { from: "2012-07-01", to: "2012-09-30" },
      { from: "2012-10-01", to: "2012-12-31" },
    ]);
    expect(config.total).toBe(4);
    const summary = readJson<Summary>(path.join(dir, "summary.json"));
    expect(summary.done).toBe(4);
    expect(summary.buyAndHold).toHaveLength(4);
    expect(summary.budget.stopped).toBeNull();
  });

  it("starts no run once the spend plus the next run's estimate would pass the budget", async () => {
    // The same runs again (no cache, the same answers): a budget of 2.5 runs lets 2 start.
    const costs = costsOf(dir);
    const mean = costs.reduce((a, b) => a + b, 0) / costs.length;
    expect(mean).toBeGreaterThan(0);
    const budget = Number((2.5 * mean).toPrecision(6));
    const capped = await experiment("budget", "--budget-usd", String(budget));
    expect(capped.code).toBe(1);
    const summary = readJson<Summary>(path.join(capped.dir, "summary.json"));
    expect(summary.done).toBe(2);
    expect(summary.status).toBe("interrupted");
    expect(summary.budget.usd).toBe(budget);
    expect(summary.budget.spentUsd).toBeLessThanOrEqual(budget);
    expect(summary.budget.stopped).toContain("would pass --budget-usd");
    expect(capped.stdout).toContain("Runs left unstarted");
  });

  it("holds the first runs to the estimate made before launch, before any run is billed", async () => {
    const config = readJson<{ estimate: { runs: number; usd: { point: number } } }>(
      path.join(dir, "config.json"),
    );
    const perRun = config.estimate.usd.point / config.estimate.runs;
    expect(perRun).toBeGreaterThan(0);
    const held = await experiment("held", "--budget-usd", String(perRun / 2));
    expect(held.code).toBe(1);
    const summary = readJson<Summary>(path.join(held.dir, "summary.json"));
    expect(summary.done).toBe(0);
    expect(summary.budget.stopped).toMatch(
      /^\$0\.0000 spent plus ~\$[0-9.]+ for the next run would pass/,
    );
  });
});
