import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cli, cliAsync, DATA, readJson, tempDir } from "../helpers/cli.js";
import { type RedisServer, startRedisServer } from "../helpers/redis-server.js";
import { waitExit } from "../helpers/wait.js";
import {
  GOOG_GRID,
  linesByIndex,
  localSweep,
  onlySweep,
  SMA_STRATEGY,
  startWorker,
  stopWorker,
  type WorkerProcess,
} from "./queue-kit.js";

let redis: RedisServer;
let work: string;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  work = tempDir("agenticbt-queue-");
  fs.copyFileSync(path.join(DATA, "GOOG.csv"), path.join(work, "GOOG.csv"));
});

afterAll(async () => {
  for (const w of workers) await stopWorker(w);
  await redis.close();
  fs.rmSync(work, { recursive: true, force: true });
});

it("runs the GOOG 175-combination sweep on 2 worker processes to the local sweep's every line", async () => {
  const args = [SMA_STRATEGY, "--data", "GOOG.csv", ...GOOG_GRID];
  workers.push(await startWorker(redis.url, work), await startWorker(redis.url, work));
  const runsDir = path.join(work, "queued", "runs");
  const sweep = cliAsync(
    ["sweep", ...args, "--queue", redis.url, "--runs-dir", runsDir, "--quiet"],
    work,
  );
  let err = "";
  sweep.stderr.on("data", (d: Buffer) => {
    err += d.toString();
  });
  sweep.stdout.resume();
  expect(await waitExit(sweep), err).toBe(0);
  const dir = onlySweep(runsDir);
  const queued = linesByIndex(dir);
  const local = localSweep(work, args);
  expect(queued).toHaveLength(175);
  expect(queued).toEqual(local);
  // Both workers took jobs: the sweep was spread, not run by one.
  for (const w of workers) expect(w.log()).toMatch(/job [0-9a-f]{64} done/);
  const summary = readJson(path.join(dir, "summary.json"));
  const localSummary = readJson(
    path.join(onlySweep(path.join(work, "local", "runs")), "summary.json"),
  );
  for (const key of ["status", "best", "statistics", "done", "failed", "total"])
    expect(summary[key], key).toEqual(localSummary[key]);
  expect(fs.existsSync(path.join(dir, "report.html"))).toBe(true);
  // Its results read, the sweep's jobs (each holding curves) are gone from Redis.
  const status = cli(["queue", "status", redis.url, "--json"], work);
  expect(JSON.parse(status.stdout)).toMatchObject({ sweeps: [] });
  // config.json records the queue, for a resume.
  expect(readJson(path.join(dir, "config.json")).queue).toBe(redis.url);
}, 120_000);
