// Sweeps through Redis (`sweep --queue`, `agenticbt worker`) against the local pool, on a real
// redis-server started here on a free port. `tsx bench/queue-bench.ts [runs]` (default 5);
// writes bench/results/queue.json.
//
// - Overhead per job: jobs with no combination, through the whole path a sweep's job takes (added
//   to Redis, taken by a worker, run in its worker thread, which checks the data's and the
//   strategy's sha256, its return value read back): one at a time (the round trip), and 200
//   added at once to one worker (the cost per job when they queue).
// - GOOG grid (the 175 combinations of sweep-bench.ts): `agenticbt sweep --queue` with 2 worker
//   processes (one job at a time each) against `agenticbt sweep` on the local pool (its threads:
//   the machine's cores), as combinations/s of the sweep (175 ÷ summary.json's sweepMs: from the
//   first job queued, or combination handed out, to the last result). The first queued sweep pays
//   the workers' threads' start (modules, the strategy compiled); the median is over the others.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Job, Queue, QueueEvents } from "bullmq";
import { Redis } from "ioredis";
import { JOBS_QUEUE } from "../dist/queue/connection.js";
import { chunkSize, fileSha256, jobIdOf, type SweepJobData } from "../dist/queue/sweep-job.js";
import type { SweepSummaryFile } from "../dist/sweep/sweep-dir.js";
import { startRedisServer } from "../test/helpers/redis-server.js";
import { GOOG_GRID_ARGS } from "./goog-grid.js";
import { median } from "./median.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const BIN = path.join(ROOT, "bin", "agenticbt");
const runs = Number(process.argv[2] ?? 5);
const STRATEGY = path.join(ROOT, "strategies", "sma-crossover.ts");
const DATA = path.join(ROOT, "data", "GOOG.csv");
const GRID = GOOG_GRID_ARGS;
const work = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-queue-bench-"));
const load0 = os.loadavg()[0] as number;
const step = (text: string) => process.stderr.write(`${text}\n`);
const redis = await startRedisServer({ persistent: false });

// GOOG grid: 2 worker processes against the local pool.
function sweep(extra: string[]): SweepSummaryFile {
  const r = spawnSync(
    process.execPath,
    [BIN, "sweep", ...GRID, ...extra, "--runs-dir", path.join(work, "runs"), "--json"],
    { cwd: work, encoding: "utf8", maxBuffer: 1 << 26, timeout: 300_000 },
  );
  if (r.status !== 0) throw new Error(`agenticbt sweep exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout) as SweepSummaryFile;
}
const rate = (s: SweepSummaryFile) => (s.total / s.timings.sweepMs) * 1000;

const workers: ChildProcess[] = [];
for (let k = 0; k < 2; k++) {
  const child = spawn(process.execPath, [BIN, "worker", "--queue", redis.url], {
    cwd: work,
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve) => {
    let text = "";
    child.stderr?.on("data", (d: Buffer) => {
      text += d.toString();
      if (text.includes(" on redis://")) resolve();
    });
  });
  workers.push(child);
}
step("first queued sweep");
const first = sweep(["--queue", redis.url]);
step("overhead");
const firstQueued = rate(first);
// Overhead per job: jobs of no combination through the 2 workers, with the first sweep's own
// settings (each job still goes to a worker thread, which checks the data's and strategy's sha256).
const firstConfig = JSON.parse(
  fs.readFileSync(path.join(work, "sweeps", first.id, "config.json"), "utf8"),
) as { run: SweepJobData["run"]; search: SweepJobData["search"] };
const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
const queue = new Queue(JOBS_QUEUE, { connection });
const eventsConnection = connection.duplicate();
const events = new QueueEvents(JOBS_QUEUE, { connection: eventsConnection });
await events.waitUntilReady();
let serial = 0;
const emptyJob = (): SweepJobData => ({
  sweepId: `bench-${process.pid}-${serial++}`,
  run: firstConfig.run,
  search: firstConfig.search,
  data: [{ file: DATA, sha256: fileSha256(DATA) }],
  strategy: { file: STRATEGY, sha256: fileSha256(STRATEGY) },
  items: [],
});
const roundTrip = async (): Promise<number> => {
  const data = emptyJob();
  const t0 = performance.now();
  const job = await queue.add("combinations", data, { jobId: jobIdOf(data) });
  await job.waitUntilFinished(events);
  await Job.fromId(queue, job.id ?? "");
  return performance.now() - t0;
};
for (let k = 0; k < 20; k++) await roundTrip(); // both threads started, the code warm
const trips: number[] = [];
for (let k = 0; k < 200; k++) trips.push(await roundTrip());
const batch = Array.from({ length: 200 }, emptyJob);
// Each waiting job listens for the queue's closing.
queue.setMaxListeners(batch.length + 10);
const b0 = performance.now();
const added = await queue.addBulk(
  batch.map((data) => ({ name: "combinations", data, opts: { jobId: jobIdOf(data) } })),
);
await Promise.all(added.map((j) => j.waitUntilFinished(events)));
const batchPerJobMs = (performance.now() - b0) / batch.length;
await events.close();
await queue.close();
connection.disconnect();
eventsConnection.disconnect();

const queued: number[] = [];
const local: number[] = [];
step("GOOG grid");
for (let k = 0; k < runs; k++) {
  queued.push(rate(sweep(["--queue", redis.url])));
  local.push(rate(sweep([])));
}
for (const w of workers) w.kill("SIGTERM");
await Promise.all(workers.map((w) => new Promise((resolve) => w.once("exit", resolve))));
await redis.close();
fs.rmSync(work, { recursive: true, force: true });

const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;
const result = {
  machine: { cores: os.availableParallelism(), loadAvg1m: round(load0, 2) },
  overheadPerJob: {
    roundTripMsMedian: round(median(trips), 2),
    roundTripMsMin: round(Math.min(...trips), 2),
    queuedTogetherMsPerJob: round(batchPerJobMs, 2),
  },
  googGrid: {
    combinations: 175,
    jobsPerSweep: Math.ceil(175 / chunkSize(175)),
    twoWorkersFirstPerSecond: round(firstQueued),
    twoWorkersPerSecond: round(median(queued)),
    localPoolPerSecond: round(median(local)),
    runs,
  },
};
fs.mkdirSync(path.join(ROOT, "bench", "results"), { recursive: true });
fs.writeFileSync(
  path.join(ROOT, "bench", "results", "queue.json"),
  `${JSON.stringify(result, null, 2)}\n`,
);
console.log(
  [
    `Queue (Redis ${redis.url}, ${result.machine.cores} cores, load ${result.machine.loadAvg1m})`,
    `  overhead per job: ${result.overheadPerJob.roundTripMsMedian} ms a round trip (median of 200, min ${result.overheadPerJob.roundTripMsMin}), ${result.overheadPerJob.queuedTogetherMsPerJob} ms a job when 200 queue together (2 workers)`,
    `  GOOG grid, 175 combinations in ${result.googGrid.jobsPerSweep} jobs: 2 workers ${result.googGrid.twoWorkersPerSecond}/s (first sweep ${result.googGrid.twoWorkersFirstPerSecond}/s), local pool ${result.googGrid.localPoolPerSecond}/s (medians of ${runs})`,
  ].join("\n"),
);
