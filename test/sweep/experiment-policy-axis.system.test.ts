import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliRun, ROOT, readJson } from "../helpers/cli.js";
import { startScriptedServer } from "../helpers/scripted-openai-server.js";
import { seededTrader } from "../helpers/seeded-trader.js";
import { workWithGoog } from "./sweep-kit.js";

// A memory policy key is an experiment axis, as a run flag is: each cell's runs run under its
// value (recorded in their config.json), and a bad value is refused before any run.

const work = workWithGoog("agenticbt-experiment-policy-");
const runs = path.join(work, "runs");
const server = await startScriptedServer((req) => seededTrader(req));
const ENV = { ...process.env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "test" };
const sweep = (...grid: string[]) =>
  cliRun(
    [
      "sweep",
      path.join(ROOT, "strategies", "rsi-mean-reversion.md"),
      "--data",
      "GOOG.csv",
      ...grid.flatMap((g) => ["--grid", g]),
      "--windows",
      "2012-01-01:2012-01-31",
      "--every",
      "10",
      "--yes",
      "-q",
      "--runs-dir",
      runs,
    ],
    work,
    ENV,
  );

afterAll(async () => {
  await server.close();
  fs.rmSync(work, { recursive: true, force: true });
});

describe("--grid <policy key>=a,b in an LLM experiment", () => {
  it("runs each cell under its policy value", async () => {
    const r = await sweep("retrieve_limit=1,3", "memory=files");
    expect(r.status, r.stderr).toBe(0);
    const sweeps = path.join(work, "sweeps");
    const [dir] = fs.readdirSync(sweeps);
    const lines = fs
      .readFileSync(path.join(sweeps, dir as string, "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { cell: number; runId: string });
    expect(lines).toHaveLength(2);
    const config = readJson<{ cells: { settings: Record<string, string> }[] }>(
      path.join(sweeps, dir as string, "config.json"),
    );
    for (const l of lines) {
      const cell = config.cells[l.cell]?.settings;
      const runDir = fs.readdirSync(runs).find((d) => d.includes(l.runId) || l.runId.includes(d));
      const run = readJson<{ memoryPolicy: { policy: { retrieve_limit: number } } }>(
        path.join(runs, runDir as string, "config.json"),
      );
      expect(String(run.memoryPolicy.policy.retrieve_limit)).toBe(cell?.retrieve_limit);
    }
  });

  it("refuses a value out of the key's range before any run (exit 2)", async () => {
    const r = await sweep("retrieve_limit=1,99", "memory=files");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("retrieve_limit");
  });
});
