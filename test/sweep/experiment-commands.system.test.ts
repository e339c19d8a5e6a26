import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { thisProcess } from "../../src/util/lock-file.js";
import { cliRun, ROOT, readJson } from "../helpers/cli.js";
import { startScriptedServer } from "../helpers/scripted-openai-server.js";
import { seededTrader } from "../helpers/seeded-trader.js";
import { workWithGoog } from "./sweep-kit.js";

// list, show, rm and prune know LLM experiments as they know code sweeps: a finished one, one
// killed half-way (no summary.json, a cut line), one running (a live lock), and a link to one.

const work = workWithGoog("agenticbt-experiment-cmds-");
const runs = path.join(work, "runs");
const sweeps = path.join(work, "sweeps");
const server = await startScriptedServer((req) => seededTrader(req));
const ENV = { ...process.env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "test" };
const cli = (...args: string[]) => cliRun([...args, "--runs-dir", runs], work, ENV);
let done: string;
let killed: string;

interface Summary {
  id: string;
  done: number;
  sentences: string[];
  budget: { spentUsd: number | null };
}

beforeAll(async () => {
  const r = await cli(
    "sweep",
    path.join(ROOT, "strategies", "rsi-mean-reversion.md"),
    "--data",
    "GOOG.csv",
    "--grid",
    "memory=none,files",
    "--windows",
    "2012-01-01:2012-01-31",
    "--every",
    "5",
    "--name",
    "exp",
    "-q",
    "--yes",
  );
  expect(r.status, r.stderr).toBe(0);
  done = fs.readdirSync(sweeps)[0] as string;
  // Killed after its first run: no summary.json, and a line cut in the middle.
  killed = `${done.slice(0, -4)}zzzz`;
  fs.cpSync(path.join(sweeps, done), path.join(sweeps, killed), { recursive: true });
  fs.rmSync(path.join(sweeps, killed, "summary.json"));
  const config = readJson(path.join(sweeps, killed, "config.json"));
  fs.writeFileSync(
    path.join(sweeps, killed, "config.json"),
    JSON.stringify({ ...config, id: killed }),
  );
  const lines = fs.readFileSync(path.join(sweeps, killed, "results.jsonl"), "utf8").split("\n");
  fs.writeFileSync(path.join(sweeps, killed, "results.jsonl"), `${lines[0]}\n{"key":"c1-w`);
}, 120_000);
afterAll(async () => {
  await server.close();
  fs.rmSync(work, { recursive: true, force: true });
});

describe("an LLM experiment in list, show, rm and prune", () => {
  it("show prints its cells, the sentence and the spend; --json is summary.json", async () => {
    const summary = readJson<Summary>(path.join(sweeps, done, "summary.json"));
    // A unique prefix of its id names it, as it names a run.
    const r = await cli("show", done.slice(0, -2));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Experiment ${done} (completed): 2 of 2 runs, 0 failed`);
    // One row a cell: its label and its completed runs.
    expect(r.stdout).toMatch(/^memory=none +1 +/m);
    expect(r.stdout).toMatch(/^memory=files +1 +/m);
    expect(summary.sentences).toHaveLength(1);
    expect(r.stdout).toContain(summary.sentences[0]);
    expect(summary.budget.spentUsd).toBeGreaterThan(0);
    expect(r.stdout).toContain(`Spent $${summary.budget.spentUsd?.toFixed(4)}`);
    const j = await cli("show", done, "--json");
    expect(JSON.parse(j.stdout)).toEqual(summary);
  });

  it("show of a killed one gives the figures of its finished runs and what resume does", async () => {
    const r = await cli("show", killed);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Experiment ${killed} (interrupted (process gone)): 1 of 2 runs`);
    expect(r.stdout).toContain(
      `agenticbt resume ${killed} runs the 1 left: these figures are of the 1 runs finished so far.`,
    );
    // show read the cut line without changing the file.
    expect(fs.readFileSync(path.join(sweeps, killed, "results.jsonl"), "utf8")).toMatch(
      /\{"key":"c1-w$/,
    );
  });

  it("list shows both with their status, progress and spend", async () => {
    const r = await cli("list");
    expect(r.status, r.stderr).toBe(0);
    const spent = readJson<Summary>(path.join(sweeps, done, "summary.json")).budget.spentUsd;
    expect(r.stdout).toMatch(
      new RegExp(`${done}\\s+exp\\s+completed\\s+2/2\\s+\\$${spent?.toFixed(4)}\\s+experiment:`),
    );
    expect(r.stdout).toMatch(
      new RegExp(`${killed}\\s+exp\\s+interrupted \\(process gone\\)\\s+1/2\\s+\\$\\d+\\.\\d{4}`),
    );
  });

  it("rm refuses a running experiment and a link to one, deleting nothing", async () => {
    const lock = path.join(sweeps, done, "sweep.lock");
    fs.writeFileSync(lock, JSON.stringify(thisProcess()));
    const running = await cli("rm", done, "--yes");
    expect(running.status).toBe(2);
    expect(running.stderr).toContain(`${done} is running`);
    expect((await cli("list", "--json")).stdout).toContain('"status": "running"');
    fs.rmSync(lock);
    const link = path.join(sweeps, "link");
    fs.symlinkSync(path.join(sweeps, done), link);
    const linked = await cli("rm", link, "--yes");
    expect(linked.status).toBe(2);
    expect(linked.stderr).toMatch(/link/);
    fs.rmSync(link);
    expect(fs.readdirSync(sweeps).sort()).toEqual([done, killed].sort());
    expect(fs.existsSync(path.join(sweeps, done, "summary.json"))).toBe(true);
  });

  it("prune --interrupted deletes the killed one only; rm deletes the other", async () => {
    const dry = await cli("prune", "--interrupted", "--dry-run");
    expect(dry.stdout).toMatch(new RegExp(`Would delete 1 run\\(s\\) in .*:\\n  ${killed}`));
    const old = await cli("prune", "--older-than", "1d", "--dry-run");
    expect(old.stdout).not.toContain(done);
    const pruned = await cli("prune", "--interrupted", "--yes");
    expect(pruned.status, pruned.stderr).toBe(0);
    expect(fs.readdirSync(sweeps)).toEqual([done]);
    const runDirs = fs.readdirSync(runs).length;
    const rm = await cli("rm", done, "--yes");
    expect(rm.status, rm.stderr).toBe(0);
    expect(rm.stdout).toContain(`Deleted 1 run(s) in ${sweeps}:\n  ${done}  completed`);
    expect(fs.readdirSync(sweeps)).toEqual([]);
    // The experiment's run directories are runs of their own: rm of the experiment keeps them.
    expect(fs.readdirSync(runs).length).toBe(runDirs);
  });
});
