import fs from "node:fs";
import path from "node:path";
import { Redis } from "ioredis";
import { expect, it } from "vitest";
import {
  EXPERIMENT_STARTED_FILE,
  readExperimentResults,
  readExperimentStarts,
} from "../../src/sweep/experiment/experiment-dir.js";
import { cliAsync, readJson } from "../helpers/cli.js";
import { startScriptedServer } from "../helpers/scripted-openai-server.js";
import { seededTrader } from "../helpers/seeded-trader.js";
import { exited, waitExit, waitFor } from "../helpers/wait.js";
import { experimentKit, LLM_SWEEP } from "./experiment-kit.js";
import { startWorkerWithEnv, stopWorker } from "./queue-kit.js";

// A 12-run LLM experiment (2 memory systems × 2 windows × 3 repeats) through Redis on 2 worker
// processes, against a server that answers by the request's seed, equals the same experiment run
// here: every line's figures and the summary's statistics.

const kit = await experimentKit("agenticbt-queue-experiment-");
const { work, workers, env: ENV } = kit;
const ARGS = [
  ...LLM_SWEEP,
  "--grid",
  "memory=none,files",
  "--windows",
  "2012-01-01:2012-03-31,2012-04-01:2012-06-30",
  "--repeats",
  "3",
  "--every",
  "5",
  "--yes",
  "--quiet",
];

/** One experiment under work/<root>, its own runs and cache; resolves to its sweep directory. */
async function experiment(root: string, ...more: string[]): Promise<string> {
  const runsDir = path.join(work, root, "runs");
  const child = cliAsync(
    [...ARGS, "--runs-dir", runsDir, "--cache-dir", path.join(work, root, "cache"), ...more],
    work,
    ENV,
  );
  const { code, stderr: err } = await exited(child);
  expect(code, err).toBe(0);
  const sweeps = path.join(work, root, "sweeps");
  const dirs = fs.readdirSync(sweeps);
  expect(dirs).toHaveLength(1);
  return path.join(sweeps, dirs[0] ?? "");
}

/** results.jsonl's lines by run key. */
const lines = (dir: string) => readExperimentResults(dir).sort((a, b) => (a.key < b.key ? -1 : 1));

/** Every figure of each line, tokens and $ included: the scripted trader answers by the request
 * alone, so the same run bills the same wherever it runs. */
function figures(dir: string): Record<string, unknown>[] {
  return lines(dir).map(({ runId: _runId, ...rest }) => rest);
}

it("runs a 12-run LLM experiment on 2 workers to the local experiment's every figure", async () => {
  const local = await experiment("local");
  workers.push(
    await startWorkerWithEnv(kit.redisUrl(), work, ENV),
    await startWorkerWithEnv(kit.redisUrl(), work, ENV),
  );
  const queued = await experiment("queue", "--queue", kit.redisUrl());

  const want = figures(local);
  const got = figures(queued);
  expect(want).toHaveLength(12);
  expect(new Set(got.map((l) => l.key)).size).toBe(12);
  for (const l of want) expect(l.status).toBe("completed");
  expect(got).toEqual(want);
  // Each run is a run directory under the coordinator's runs directory, on started.jsonl.
  const started = readExperimentStarts(path.join(queued, EXPERIMENT_STARTED_FILE));
  expect(started.map((s) => s.key).sort()).toEqual(want.map((l) => l.key));
  for (const s of started) expect(fs.existsSync(path.join(s.dir, "result.json"))).toBe(true);
  // Both workers took runs.
  for (const w of workers) expect(w.log()).toMatch(/job [0-9a-f]{64} done/);

  const summary = readJson(path.join(queued, "summary.json"));
  const localSummary = readJson(path.join(local, "summary.json"));
  for (const key of [
    "status",
    "total",
    "done",
    "failed",
    "cells",
    "comparisons",
    "sentences",
    "buyAndHold",
    "deflatedSharpe",
  ])
    expect(summary[key], key).toEqual(localSummary[key]);
  expect(fs.existsSync(path.join(queued, "report.html"))).toBe(true);
}, 300_000);

it("2 workers at --rpm 60 --rate-window 1 send nothing over the server's 1 a second", async () => {
  for (const w of workers.splice(0)) await stopWorker(w);
  const limited = await startScriptedServer((req) => seededTrader(req), {
    rateLimit: { requests: 1, windowMs: 1_000 },
  });
  try {
    const env = { ...ENV, OPENAI_BASE_URL: limited.url };
    workers.push(
      await startWorkerWithEnv(kit.redisUrl(), work, env),
      await startWorkerWithEnv(kit.redisUrl(), work, env),
    );
    const started = Date.now();
    const runsDir = path.join(work, "limited", "runs");
    const child = cliAsync(
      [
        ...LLM_SWEEP,
        "--grid",
        "memory=none",
        "--windows",
        "2012-01-01:2012-02-29",
        "--repeats",
        "4",
        "--every",
        "20",
        "--rpm",
        "60",
        "--rate-window",
        "1",
        "--yes",
        "--quiet",
        "--runs-dir",
        runsDir,
        "--queue",
        kit.redisUrl(),
      ],
      work,
      env,
    );
    const { code, stderr: err } = await exited(child);
    expect(code, err).toBe(0);
    const elapsed = Date.now() - started;
    const chat = limited.requests.filter((q) => q.path.endsWith("/chat/completions")).length;
    const over = limited.overLimit().length;
    console.log(`2 workers at 60 RPM: ${chat} requests, ${over} over the limit, ${elapsed} ms`);
    expect(over).toBe(0);
    expect(chat).toBeGreaterThanOrEqual(8);
    // Both workers' runs were held to one request a second between them.
    expect(elapsed).toBeGreaterThanOrEqual((chat - 1) * 1_000);
    for (const w of workers) expect(w.log()).toMatch(/job [0-9a-f]{64} done/);
  } finally {
    await limited.close();
  }
}, 300_000);

it("a worker killed with -9 mid-run: the next one goes on from the run's checkpoint", async () => {
  for (const w of workers.splice(0)) await stopWorker(w);
  // A slower provider: the run is still under way when its worker is killed.
  const slow = await startScriptedServer((req) => ({ delayMs: 40, answer: seededTrader(req) }));
  try {
    const env = { ...ENV, OPENAI_BASE_URL: slow.url };
    const shared = path.join(work, "shared", "runs");
    const args = [
      ...LLM_SWEEP,
      "--grid",
      "memory=none",
      "--windows",
      "2012-01-01:2012-04-30",
      "--repeats",
      "1",
      "--every",
      "2",
      "--yes",
      "--quiet",
    ];
    const first = await startWorkerWithEnv(kit.redisUrl(), work, env, "--lock-ms", "2000");
    workers.push(first);
    const child = cliAsync(
      [
        ...args,
        "--runs-dir",
        shared,
        "--queue",
        kit.redisUrl(),
        "--cache-dir",
        path.join(work, "c1"),
      ],
      work,
      env,
    );
    const done = exited(child);
    const runDirs = () => (fs.existsSync(shared) ? fs.readdirSync(shared) : []);
    await waitFor(
      () => runDirs().some((d) => fs.existsSync(path.join(shared, d, "checkpoint.json"))),
      60_000,
    );
    first.child.kill("SIGKILL");
    await waitExit(first.child);
    const [killedRun] = runDirs();
    const unfinished = readJson<{ status: string }>(
      path.join(shared, killedRun ?? "", "result.json"),
    );
    expect(unfinished.status).not.toBe("completed");
    workers.push(await startWorkerWithEnv(kit.redisUrl(), work, env, "--lock-ms", "2000"));
    const { code, stderr: err } = await done;
    expect(code, err).toBe(0);

    // One run directory: the run went on in it rather than starting again.
    expect(runDirs()).toEqual([killedRun]);
    const sweeps = path.join(work, "shared", "sweeps");
    const [queued] = fs.readdirSync(sweeps);
    const alone = cliAsync(
      [
        ...args,
        "--runs-dir",
        path.join(work, "nokill", "runs"),
        "--cache-dir",
        path.join(work, "c2"),
      ],
      work,
      env,
    );
    alone.stdout.resume();
    alone.stderr.resume();
    expect(await waitExit(alone)).toBe(0);
    const [localDir] = fs.readdirSync(path.join(work, "nokill", "sweeps"));
    const local = path.join(work, "nokill", "sweeps", localDir ?? "");
    const trading = (dir: string) => figures(dir).map(({ calls: _calls, ...rest }) => rest);
    expect(trading(path.join(sweeps, queued ?? ""))).toEqual(trading(local));
  } finally {
    await slow.close();
  }
}, 300_000);

it("a coordinator killed with -9: resume reattaches to the experiment's queue and completes", async () => {
  for (const w of workers.splice(0)) await stopWorker(w);
  const root = path.join(work, "coordinator");
  const args = [
    ...LLM_SWEEP,
    "--grid",
    "memory=none",
    "--windows",
    "2012-01-01:2012-02-29",
    "--repeats",
    "3",
    "--every",
    "5",
    "--yes",
    "--quiet",
    "--runs-dir",
    path.join(root, "runs"),
    "--cache-dir",
    path.join(root, "cache"),
  ];
  // No worker yet: the runs wait in Redis when the coordinator is killed.
  const coordinator = cliAsync([...args, "--queue", kit.redisUrl()], work, ENV);
  coordinator.stdout.resume();
  coordinator.stderr.resume();
  const sweeps = path.join(root, "sweeps");
  const client = new Redis(kit.redisUrl(), { lazyConnect: true });
  await client.connect();
  let dir = "";
  try {
    const queued = async () => {
      const [d] = fs.existsSync(sweeps) ? fs.readdirSync(sweeps) : [];
      if (d === undefined || !fs.existsSync(path.join(sweeps, d, "config.json"))) return false;
      dir = path.join(sweeps, d);
      const { id } = readJson<{ id: string }>(path.join(dir, "config.json"));
      return (await client.exists(`bull:agenticbt-sweeps:${id}`)) === 1;
    };
    const until = Date.now() + 60_000;
    while (!(await queued())) {
      if (Date.now() > until) throw new Error("the experiment's jobs never reached Redis");
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    client.disconnect();
  }
  coordinator.kill("SIGKILL");
  await waitExit(coordinator);
  expect(readJson<{ queue?: string }>(path.join(dir, "config.json")).queue).toBe(kit.redisUrl());

  const worker = await startWorkerWithEnv(kit.redisUrl(), work, ENV);
  workers.push(worker);
  // No --queue: the experiment's config.json names it.
  const resumed = cliAsync(["resume", dir, "--quiet"], work, ENV);
  const { code, stderr: err } = await exited(resumed);
  expect(code, err).toBe(0);
  const got = lines(dir);
  expect(got.map((l) => l.key)).toEqual(["c0-w0-r1", "c0-w0-r2", "c0-w0-r3"]);
  for (const l of got) expect(l.status).toBe("completed");
  // Each run ran once: one job done each, one run directory each.
  expect(worker.log().match(/job [0-9a-f]{64} done/g)).toHaveLength(3);
  expect(fs.readdirSync(path.join(root, "runs"))).toHaveLength(3);
}, 300_000);

it("queue cancel <experiment> removes its runs' jobs, and its coordinator stops interrupted", async () => {
  for (const w of workers.splice(0)) await stopWorker(w);
  const root = path.join(work, "cancelled");
  const runsDir = path.join(root, "runs");
  const coordinator = cliAsync(
    [
      ...LLM_SWEEP,
      "--grid",
      "memory=none",
      "--windows",
      "2012-01-01:2012-02-29",
      "--repeats",
      "2",
      "--yes",
      "--quiet",
      "--runs-dir",
      runsDir,
      "--queue",
      kit.redisUrl(),
    ],
    work,
    ENV,
  );
  coordinator.stdout.resume();
  coordinator.stderr.resume();
  const sweeps = path.join(root, "sweeps");
  const client = new Redis(kit.redisUrl(), { lazyConnect: true });
  await client.connect();
  let id = "";
  try {
    const until = Date.now() + 60_000;
    for (;;) {
      const [d] = fs.existsSync(sweeps) ? fs.readdirSync(sweeps) : [];
      if (d !== undefined && fs.existsSync(path.join(sweeps, d, "config.json"))) {
        id = readJson<{ id: string }>(path.join(sweeps, d, "config.json")).id;
        if ((await client.exists(`bull:agenticbt-sweeps:${id}`)) === 1) break;
      }
      if (Date.now() > until) throw new Error("the experiment's jobs never reached Redis");
      await new Promise((r) => setTimeout(r, 50));
    }
    const cancel = cliAsync(["queue", "cancel", id, "--runs-dir", runsDir], work, ENV);
    let out = "";
    cancel.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    cancel.stderr.resume();
    expect(await waitExit(cancel)).toBe(0);
    expect(out).toContain(`Cancelled sweep ${id}: 2 jobs removed`);
    await waitExit(coordinator);
    expect(readJson<{ status: string }>(path.join(sweeps, id, "summary.json")).status).toBe(
      "interrupted",
    );
    expect(await client.exists(`bull:agenticbt-sweeps:${id}`)).toBe(0);
  } finally {
    client.disconnect();
    if (coordinator.exitCode === null) coordinator.kill("SIGKILL");
  }
}, 120_000);
