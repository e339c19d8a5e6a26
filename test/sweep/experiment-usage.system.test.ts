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

  it("refuses --replay of something that is no experiment", () => {
    const r = cli(
      ["sweep", "--replay", "nothing-here", "--runs-dir", path.join(work, "runs")],
      ROOT,
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("names no LLM experiment");
  });
});

describe("--windows rolling:3m", async () => {
  const server = await startScriptedServer((req) => seededTrader(req));
  const child = cliAsync(
    [
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
      "--runs-dir",
      path.join(work, "rolling", "runs"),
      "-q",
    ],
    ROOT,
    { ...process.env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "test" },
  );
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  await server.close();

  it("runs the four quarters of 2012, one run each", () => {
    expect(code).toBe(0);
    const root = path.join(work, "rolling", "sweeps");
    const dir = path.join(root, fs.readdirSync(root)[0] as string);
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
    const summary = readJson<{ done: number; buyAndHold: unknown[] }>(
      path.join(dir, "summary.json"),
    );
    expect(summary.done).toBe(4);
    expect(summary.buyAndHold).toHaveLength(4);
  });
});
