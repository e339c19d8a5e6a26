import fs from "node:fs";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, expect, it } from "vitest";
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

// An LLM experiment through Redis under --budget-usd (held where each run starts, on the
// workers, against the spend they share), and a run a worker takes over from a killed one
// starting again with a persistent store of its own.

const kit = await experimentKit("agenticbt-queue-budget-");
const { work, workers, env: ENV } = kit;
// A trader that always holds: every run of one window makes the same calls and costs the same
// but for a token or two, so how many runs a budget lets start does not hang on which run ends
// first. It bills 10 tokens a request's character (a provider's hidden prompt, say): a run costs
// more than the launch estimate, so the mean of the billed runs is what stops the experiment.
const holder = await startScriptedServer((req) => {
  const body = req.body as { messages: unknown[]; tools?: unknown[] };
  const prompt = JSON.stringify(body.messages).length + JSON.stringify(body.tools ?? []).length;
  return {
    content: "Holding.",
    usage: { prompt: 10 * prompt, completion: 2 },
  };
});
afterAll(async () => {
  await holder.close();
});

interface Summary {
  status: string;
  done: number;
  budget: { usd: number | null; spentUsd: number | null; stopped: string | null };
}
/** 6 runs (one window, 6 repeats: alike in cost) under work/<root>, no cache: every call billed. */
async function experiment(
  root: string,
  env: NodeJS.ProcessEnv,
  ...more: string[]
): Promise<{ code: number | null; dir: string; err: string }> {
  const child = cliAsync(
    [
      ...LLM_SWEEP,
      "--memory",
      "none",
      "--windows",
      "2012-01-01:2012-06-30",
      "--repeats",
      "6",
      "--every",
      "20",
      "--no-cache",
      "--yes",
      "--runs-dir",
      path.join(work, root, "runs"),
      ...more,
    ],
    work,
    env,
  );
  const { code, stderr: err } = await exited(child);
  const sweeps = path.join(work, root, "sweeps");
  const [d] = fs.readdirSync(sweeps);
  return { code, dir: path.join(sweeps, d ?? ""), err };
}

it("--budget-usd through a queue: 2 workers start as many runs as 2 local jobs", async () => {
  const env = { ...ENV, OPENAI_BASE_URL: holder.url };
  const full = await experiment("full", env, "--quiet", "--jobs", "2");
  expect(full.code, full.err).toBe(0);
  const costs = readExperimentResults(full.dir).map((l) => l.metrics.costUsd ?? Number.NaN);
  expect(costs).toHaveLength(6);
  const mean = costs.reduce((a, b) => a + b, 0) / costs.length;
  expect(mean).toBeGreaterThan(0);
  // About 2.5 runs' worth: the first two start on the estimate, a third never fits.
  const budget = Number((2.5 * mean).toPrecision(6));
  const estimate = readJson<{ estimate: { runs: number; usd: { point: number } } }>(
    path.join(full.dir, "config.json"),
  ).estimate;
  expect((2 * estimate.usd.point) / estimate.runs).toBeLessThanOrEqual(budget);

  const local = await experiment(
    "local",
    env,
    "--quiet",
    "--jobs",
    "2",
    "--budget-usd",
    String(budget),
  );
  const localSummary = readJson<Summary>(path.join(local.dir, "summary.json"));
  expect(localSummary.status).toBe("interrupted");

  workers.push(
    await startWorkerWithEnv(kit.redisUrl(), work, env),
    await startWorkerWithEnv(kit.redisUrl(), work, env),
  );
  const queued = await experiment(
    "queue",
    env,
    "--budget-usd",
    String(budget),
    "--queue",
    kit.redisUrl(),
  );
  expect(queued.code, queued.err).toBe(1);
  const summary = readJson<Summary>(path.join(queued.dir, "summary.json"));
  const lines = readExperimentResults(queued.dir);
  const started = readExperimentStarts(path.join(queued.dir, EXPERIMENT_STARTED_FILE));
  const spent = summary.budget.spentUsd ?? Number.NaN;
  console.log(
    `budget $${budget} (mean run $${mean.toFixed(6)}): local --jobs 2 ran ${localSummary.done}, 2 workers ran ${summary.done}, spent $${spent.toFixed(6)}`,
  );
  expect(summary.status).toBe("interrupted");
  expect(summary.budget.usd).toBe(budget);
  expect(summary.budget.stopped).toContain("would pass --budget-usd");
  // Runs alike: after any 2 have started, a third would make 3 runs' worth > 2.5.
  expect(localSummary.done).toBe(2);
  expect(summary.done).toBe(localSummary.done);
  // The runs refused have no line, on either file.
  expect(lines).toHaveLength(summary.done);
  expect(started.map((s) => s.key).sort()).toEqual(lines.map((l) => l.key).sort());
  expect(fs.readdirSync(path.join(work, "queue", "runs"))).toHaveLength(summary.done);
  expect(spent).toBeLessThanOrEqual(budget);
  // Its progress (off a terminal, a line each): a run is "started" when a worker starts it, so
  // never more at once than the 2 workers run; a refused run is never said to have started.
  const progress = queued.err.split("\n");
  let inFlight = 0;
  let most = 0;
  for (const l of progress) {
    if (/^c\d+-w\d+-r\d+: started/.test(l)) most = Math.max(most, ++inFlight);
    if (/^\[\d+\/6\]/.test(l)) inFlight--;
  }
  expect(most).toBeLessThanOrEqual(2);
  expect(progress.filter((l) => /: started/.test(l))).toHaveLength(summary.done);
  expect(progress.filter((l) => /: not started: .*would pass --budget-usd/.test(l))).toHaveLength(
    6 - summary.done,
  );
  // Every job came back (refused ones done at once), and the experiment's keys left Redis.
  const client = new Redis(kit.redisUrl(), { lazyConnect: true });
  await client.connect();
  try {
    const { id } = readJson<{ id: string }>(path.join(queued.dir, "config.json"));
    expect(await client.keys(`agenticbt-budget:{${id}}*`)).toEqual([]);
  } finally {
    client.disconnect();
  }
  const jobsDone = workers.map((w) => (w.log().match(/job [0-9a-f]{64} done/g) ?? []).length);
  expect(jobsDone.reduce((a, b) => a + b, 0)).toBe(6);

  // A resume under the same budget asks again, against the runs' bills: it starts nothing.
  const resumed = cliAsync(["resume", queued.dir, "--quiet"], work, env);
  resumed.stdout.resume();
  resumed.stderr.resume();
  expect(await waitExit(resumed)).toBe(1);
  const again = readJson<Summary>(path.join(queued.dir, "summary.json"));
  expect(again.status).toBe("interrupted");
  expect(again.done).toBe(summary.done);
  expect(again.budget.stopped).toContain("would pass --budget-usd");
  expect(readExperimentResults(queued.dir)).toHaveLength(summary.done);
}, 300_000);

it("a worker killed with -9 mid-run of a persistent-memory run: the next starts attempt 2 in a store of its own", async () => {
  for (const w of workers.splice(0)) await stopWorker(w);
  // A slower provider: the run is still under way when its worker is killed.
  const slow = await startScriptedServer((req) => ({ delayMs: 40, answer: seededTrader(req) }));
  try {
    const env = { ...ENV, OPENAI_BASE_URL: slow.url };
    const root = path.join(work, "persistent");
    const runs = path.join(root, "runs");
    const first = await startWorkerWithEnv(kit.redisUrl(), work, env, "--lock-ms", "2000");
    workers.push(first);
    const child = cliAsync(
      [
        ...LLM_SWEEP,
        "--grid",
        "memory=persistent",
        "--windows",
        "2012-01-01:2012-04-30",
        "--every",
        "2",
        "--yes",
        "--quiet",
        "--runs-dir",
        runs,
        "--cache-dir",
        path.join(root, "cache"),
        "--queue",
        kit.redisUrl(),
      ],
      work,
      env,
    );
    const done = exited(child);
    const runDirs = () => (fs.existsSync(runs) ? fs.readdirSync(runs) : []);
    const storeOf = (d: string) => path.join(runs, d, "persistent", "store.json");
    // The first attempt has opened its store and is deciding.
    await waitFor(
      () => runDirs().some((d) => fs.existsSync(path.join(runs, d, "checkpoint.json"))),
      60_000,
    );
    first.child.kill("SIGKILL");
    await waitExit(first.child);
    const [killed] = runDirs();
    expect(
      readJson<{ status: string }>(path.join(runs, killed ?? "", "result.json")).status,
    ).not.toBe("completed");
    workers.push(await startWorkerWithEnv(kit.redisUrl(), work, env, "--lock-ms", "2000"));
    const { code, stderr: err } = await done;
    expect(code, err).toBe(0);

    // A persistent run cannot be resumed: the run started again, in a run directory of its own.
    const dirs = runDirs();
    expect(dirs).toHaveLength(2);
    const retry = dirs.find((d) => d !== killed) ?? "";
    expect(readJson<{ status: string }>(path.join(runs, retry, "result.json")).status).toBe(
      "completed",
    );
    const a1 = readJson<{ namespace: string; store: string }>(storeOf(killed ?? ""));
    const a2 = readJson<{ namespace: string; store: string; entriesAtStart: number }>(
      storeOf(retry),
    );
    expect(a1.namespace).toMatch(/-c0-w0-r1-a1$/);
    expect(a2.namespace).toBe(a1.namespace.replace(/-a1$/, "-a2"));
    expect(path.basename(a2.store)).toBe(a2.namespace);
    expect(a2.store).not.toBe(a1.store);
    expect(fs.existsSync(a1.store)).toBe(true);
    expect(a2.entriesAtStart).toBe(0);
    // The run's own config says so too, and the experiment records attempt 2.
    const config = readJson<{ memory: { config: { namespace: string } } }>(
      path.join(runs, retry, "config.json"),
    );
    expect(config.memory.config.namespace).toBe(a2.namespace);
    const [sweep] = fs.readdirSync(path.join(root, "sweeps"));
    const started = readExperimentStarts(
      path.join(root, "sweeps", sweep ?? "", EXPERIMENT_STARTED_FILE),
    );
    expect(started).toEqual([
      { key: "c0-w0-r1", runId: retry, dir: path.join(runs, retry), attempt: 2 },
    ]);
  } finally {
    await slow.close();
  }
}, 300_000);
