import type { ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { cliAsync, DATA, ROOT, readJson, tempDir } from "../helpers/cli.js";
import { type RedisServer, startRedisServer } from "../helpers/redis-server.js";
import { waitExit, waitFor } from "../helpers/wait.js";
import {
  linesByIndex,
  localSweep,
  onlySweep,
  SLOW_STRATEGY,
  startWorker,
  startWorkerWithEnv,
  stopWorker,
  type WorkerProcess,
} from "./queue-kit.js";

// Faults of a sweep through Redis: each sweep runs the slow fixture (about a second a
// combination, its sleeps marked in a file), so a fault lands in the middle of a job.

let redis: RedisServer;
let work: string;
let workers: WorkerProcess[] = [];
let children: ChildProcess[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
});

afterEach(async () => {
  for (const w of workers) await stopWorker(w);
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  workers = [];
  children = [];
  const r = new Redis(redis.url);
  await r.flushall();
  r.disconnect();
  fs.rmSync(work, { recursive: true, force: true });
});

afterAll(async () => {
  await redis.close();
});

/** A fresh directory with GOOG.csv, and the slow sweep's arguments (4 combinations). */
function setUp(): { args: string[]; mark: string } {
  work = tempDir("agenticbt-queue-faults-");
  fs.copyFileSync(path.join(DATA, "GOOG.csv"), path.join(work, "GOOG.csv"));
  const mark = path.join(work, "mark");
  const args = [
    SLOW_STRATEGY,
    "--data",
    "GOOG.csv",
    "--param",
    "every=100",
    "--param",
    `mark=${mark}`,
    "--grid",
    "ms=60:63:1",
  ];
  return { args, mark };
}

/** `sweep … --queue`, started; its stderr kept. */
function startSweep(args: string[], runsDir: string): { child: ChildProcess; err: () => string } {
  const child = cliAsync(
    ["sweep", ...args, "--queue", redis.url, "--runs-dir", runsDir, "--quiet"],
    work,
  );
  children.push(child);
  let err = "";
  child.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  child.stdout?.resume();
  return { child, err: () => err };
}

/** Resolves once the sweep's flow is in Redis (its jobs are queued). */
async function queued(runsDir: string): Promise<string> {
  let dir = "";
  await waitFor(() => {
    try {
      dir = onlySweep(runsDir);
      return true;
    } catch {
      return false;
    }
  }, 30_000);
  const r = new Redis(redis.url);
  try {
    const key = `bull:agenticbt-sweeps:${path.basename(dir)}`;
    const until = Date.now() + 30_000;
    while ((await r.exists(key)) === 0) {
      if (Date.now() > until) throw new Error(`${key} never appeared`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    r.disconnect();
  }
  return dir;
}

it("a worker killed with -9 mid-job: another takes its job, and the results are complete", async () => {
  const { args, mark } = setUp();
  const runsDir = path.join(work, "queued", "runs");
  const sweep = startSweep(args, runsDir);
  await queued(runsDir);
  const doomed = await startWorker(redis.url, work, "--lock-ms", "2000");
  // Inside a job: the strategy has slept once.
  await waitFor(() => fs.existsSync(mark), 30_000);
  doomed.child.kill("SIGKILL");
  await waitExit(doomed.child);
  const rescuer = await startWorker(redis.url, work, "--lock-ms", "2000");
  workers.push(rescuer);
  expect(await waitExit(sweep.child), sweep.err()).toBe(0);
  const lines = linesByIndex(onlySweep(runsDir));
  expect(lines).toHaveLength(4);
  expect(lines).toEqual(localSweep(work, args));
  // The killed worker finished no job: the rescuer ran all four, the taken-over one included.
  expect(doomed.log()).not.toMatch(/ done/);
  expect(rescuer.log().match(/ done/g)).toHaveLength(4);
}, 120_000);

it("Redis stopped for 3 s and started again mid-sweep: the sweep completes identically", async () => {
  const { args, mark } = setUp();
  const runsDir = path.join(work, "queued", "runs");
  workers.push(await startWorker(redis.url, work), await startWorker(redis.url, work));
  const sweep = startSweep(args, runsDir);
  await waitFor(() => fs.existsSync(mark), 30_000);
  await redis.stop();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  await redis.start();
  expect(await waitExit(sweep.child), sweep.err()).toBe(0);
  const lines = linesByIndex(onlySweep(runsDir));
  expect(lines).toHaveLength(4);
  expect(lines).toEqual(localSweep(work, args));
}, 120_000);

it("a coordinator killed with -9: resume reattaches to the queue and completes", async () => {
  const { args } = setUp();
  const runsDir = path.join(work, "queued", "runs");
  const sweep = startSweep(args, runsDir);
  const dir = await queued(runsDir);
  sweep.child.kill("SIGKILL");
  await waitExit(sweep.child);
  // Jobs go on without their coordinator.
  workers.push(await startWorker(redis.url, work));
  await waitFor(() => (workers[0]?.log().match(/ done/g) ?? []).length >= 1, 60_000);
  const resume = cliAsync(["resume", dir, "--runs-dir", runsDir, "--quiet"], work);
  children.push(resume);
  let err = "";
  resume.stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  resume.stdout.resume();
  expect(await waitExit(resume), err).toBe(0);
  const lines = linesByIndex(dir);
  expect(lines).toHaveLength(4);
  expect(lines).toEqual(localSweep(work, args));
  // Each job ran once: the resume added the same jobs again, not new ones.
  expect(workers[0]?.log().match(/ done/g)).toHaveLength(4);
  expect(readJson(path.join(dir, "summary.json")).status).toBe("completed");
}, 120_000);

it("a worker with other data fails the jobs for good: each combination is recorded as failed with why", async () => {
  const { args } = setUp();
  const runsDir = path.join(work, "queued", "runs");
  const sweep = startSweep(args, runsDir);
  await queued(runsDir);
  const data = path.join(work, "GOOG.csv");
  const before = readSha(data);
  fs.appendFileSync(data, "\n");
  const after = readSha(data);
  workers.push(await startWorker(redis.url, work));
  expect(await waitExit(sweep.child), sweep.err()).toBe(1);
  const lines = linesByIndex(onlySweep(runsDir)).map(
    (l) => JSON.parse(l) as { status: string; error: { type: string; message: string } },
  );
  expect(lines).toHaveLength(4);
  for (const l of lines) {
    expect(l.status).toBe("failed");
    expect(l.error.type).toBe("QueueJobFailed");
    expect(l.error.message).toContain("GOOG.csv");
    expect(l.error.message).toContain(before);
    expect(l.error.message).toContain(after);
  }
  const summary = readJson(path.join(onlySweep(runsDir), "summary.json"));
  expect(summary.failed).toBe(4);
}, 120_000);

it("a job that fails an attempt is retried, and its retry's results are the sweep's", async () => {
  work = tempDir("agenticbt-queue-faults-");
  fs.copyFileSync(path.join(DATA, "GOOG.csv"), path.join(work, "GOOG.csv"));
  const flag = path.join(work, "flag");
  fs.writeFileSync(flag, "");
  const args = [
    path.join(ROOT, "test", "fixtures", "strategies", "fails-to-load-while-flagged.ts"),
    "--data",
    "GOOG.csv",
    "--grid",
    "size=0.5,1",
  ];
  const runsDir = path.join(work, "queued", "runs");
  const sweep = startSweep(args, runsDir);
  await queued(runsDir);
  const worker = await startWorkerWithEnv(redis.url, work, {
    ...process.env,
    AGENTICBT_TEST_LOAD_FLAG: flag,
  });
  workers.push(worker);
  // The first attempt fails (its strategy cannot load); the retry, a second later, can.
  await waitFor(() => worker.log().includes("not now:"), 30_000);
  fs.rmSync(flag);
  expect(await waitExit(sweep.child), sweep.err()).toBe(0);
  const lines = linesByIndex(onlySweep(runsDir));
  expect(lines).toHaveLength(2);
  expect(lines).toEqual(localSweep(work, args));
}, 120_000);

function readSha(file: string): string {
  return createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}
