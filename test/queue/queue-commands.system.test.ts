import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cli, cliAsync, DATA, readJson, tempDir } from "../helpers/cli.js";
import { type RedisServer, startRedisServer } from "../helpers/redis-server.js";
import { waitExit, waitFor } from "../helpers/wait.js";
import {
  onlySweep,
  SLOW_STRATEGY,
  startWorker,
  stopWorker,
  type WorkerProcess,
} from "./queue-kit.js";

let redis: RedisServer;
let work: string;
let worker: WorkerProcess | undefined;

beforeAll(async () => {
  redis = await startRedisServer();
  work = tempDir("agenticbt-queue-commands-");
  fs.copyFileSync(path.join(DATA, "GOOG.csv"), path.join(work, "GOOG.csv"));
});

afterAll(async () => {
  if (worker) await stopWorker(worker);
  await redis.close();
  fs.rmSync(work, { recursive: true, force: true });
});

interface Status {
  sweeps: { sweepId: string; counts: Record<string, number> }[];
  workers: { name: string }[];
}

function status(): Status {
  const r = cli(["queue", "status", redis.url, "--json"], work);
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as Status;
}

it("queue status counts a sweep's jobs and lists the workers; queue cancel stops the sweep", async () => {
  const runsDir = path.join(work, "runs");
  const sweep = cliAsync(
    [
      "sweep",
      SLOW_STRATEGY,
      "--data",
      "GOOG.csv",
      "--param",
      "every=100",
      "--grid",
      "ms=60:67:1",
      "--queue",
      redis.url,
      "--runs-dir",
      runsDir,
      "--quiet",
    ],
    work,
  );
  sweep.stdout.resume();
  sweep.stderr.resume();
  await waitFor(() => status().sweeps.length === 1, 30_000, 200);
  const id = path.basename(onlySweep(runsDir));
  expect(status()).toEqual({
    sweeps: [{ sweepId: id, counts: { waiting: 8, active: 0, completed: 0, failed: 0 } }],
    workers: [],
  });
  worker = await startWorker(redis.url, work);
  await waitFor(() => (status().sweeps[0]?.counts.completed ?? 0) >= 1, 60_000, 200);
  const seen = status();
  expect(seen.workers).toHaveLength(1);
  expect(seen.workers[0]?.name).toMatch(/^agenticbt-worker:/);
  const counts = seen.sweeps[0]?.counts ?? {};
  expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(8);

  const cancel = cli(["queue", "cancel", id, "--runs-dir", runsDir], work);
  expect(cancel.status, cancel.stderr).toBe(0);
  expect(cancel.stdout).toMatch(new RegExp(`Cancelled sweep ${id}: \\d+ jobs? removed`));
  // The coordinator stops: the sweep is interrupted, with fewer than its 8 combinations.
  expect(await waitExit(sweep)).toBe(1);
  const summary = readJson(path.join(onlySweep(runsDir), "summary.json"));
  expect(summary.status).toBe("interrupted");
  expect(summary.done as number).toBeLessThan(8);
  const after = status().sweeps.find((s) => s.sweepId === id)?.counts;
  expect(after?.waiting ?? 0).toBe(0);
}, 120_000);
