// An LLM experiment through Redis: its wall time with 2 `agenticbt worker` processes against 1.
// The same experiment (memory=none,files × 2 six-week windows × 3 repeats on GOOG, --every 20:
// 12 runs; most calls are the files memory's moments) against the scripted server answering
// every call in 200 ms (a model's latency is what an LLM run waits on), three ways: on this
// machine (`--jobs 1`: one run in flight), and `--queue` on a real redis-server with 1 worker and
// with 2 workers (`--concurrency 1` each: one run in flight per worker, so 1 against 2 runs in
// flight, as local --jobs 1 against 1 worker). The wall time is the coordinator's, spawn to exit
// (the workers are started and ready before); the experiment's own is config.json's createdAt
// to summary.json's finishedAt. The three results.jsonl must agree on every run's status and
// metrics (the billed tokens and $ are listed apart where they differ); the bench fails when
// they do not. `tsx bench/queue-experiment-bench.ts [runs]` (default 1 of each, the median when
// more); needs `npm run build`; writes bench/results/queue-experiment.json.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  type ExperimentResultLine,
  readExperimentResults,
} from "../src/sweep/experiment/experiment-dir.js";
import { type RedisServer, startRedisServer } from "../test/helpers/redis-server.js";
import { startScriptedServer } from "../test/helpers/scripted-openai-server.js";
import { seededTrader } from "../test/helpers/seeded-trader.js";
import { memoryExperimentArgs } from "./llm-experiment.js";
import { median } from "./median.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const BIN = path.join(ROOT, "bin", "agenticbt");
const runs = Number(process.argv[2] ?? 1);
const CALL_MS = 200;
const RUNS = 12;
const WAYS = ["local", "worker1", "workers2"] as const;
type Way = (typeof WAYS)[number];
/** The figures that depend on the prompt's length, compared apart (see the note at the end). */
const BILLED = ["tokens", "costUsd"] as const;
const EXPERIMENT = [
  "sweep",
  ...memoryExperimentArgs({
    windows: "2012-01-01:2012-02-15,2012-04-01:2012-05-15",
    repeats: 3,
    every: 20,
  }),
  "--quiet",
];
const step = (text: string) => process.stderr.write(`${text}\n`);
const load0 = os.loadavg()[0] as number;
const work = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-queue-experiment-bench-"));
/** When each call reached the server (ms, this process's clock). */
const arrivals: number[] = [];
const server = await startScriptedServer((req) => {
  arrivals.push(performance.now());
  return { delayMs: CALL_MS, answer: seededTrader(req) };
});
const ENV = { ...process.env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "bench" };
let redis: RedisServer | null = null;
const workers = new Set<ChildProcess>();
/** Each running worker's stderr, shown when an experiment fails. */
const workerLogs = new Map<ChildProcess, () => string>();

/** `agenticbt worker --queue url --concurrency 1`; resolves once it takes jobs. */
async function startWorker(url: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, "worker", "--queue", url, "--concurrency", "1"], {
    cwd: work,
    env: ENV,
    stdio: ["ignore", "ignore", "pipe"],
  });
  workers.add(child);
  let text = "";
  workerLogs.set(child, () => text);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker not ready in 30 s: ${text}`)), 30_000);
    child.stderr?.on("data", (d: Buffer) => {
      text += d.toString();
      if (text.includes(" on redis://")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited ${code}: ${text}`));
    });
  });
  return child;
}

/** SIGTERM (its job under way finishes first), and waits for it to exit. */
async function stopWorker(child: ChildProcess): Promise<void> {
  workers.delete(child);
  workerLogs.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

interface Measured {
  wallMs: number;
  /** config.json's createdAt to summary.json's finishedAt. */
  experimentMs: number;
  calls: number;
  /** Calls in flight at the server at most (each counted CALL_MS from its arrival). */
  peakCalls: number;
  dir: string;
}

/** Most arrivals within any CALL_MS: the calls the server answered at once. */
function peak(times: readonly number[]): number {
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < times.length; hi++) {
    while ((times[hi] as number) - (times[lo] as number) >= CALL_MS) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

/** The experiment in a fresh `agenticbt sweep` process, under work/<name>. */
async function experiment(name: string, extra: string[]): Promise<Measured> {
  const root = path.join(work, name);
  const first = arrivals.length;
  const args = [
    BIN,
    ...EXPERIMENT,
    ...extra,
    "--runs-dir",
    path.join(root, "runs"),
    "--cache-dir",
    path.join(root, "cache"),
  ];
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    cwd: work,
    env: ENV,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  child.stdout.resume();
  const timer = setTimeout(() => child.kill("SIGTERM"), 300_000);
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  const wallMs = performance.now() - t0;
  clearTimeout(timer);
  if (code !== 0)
    throw new Error(
      `agenticbt sweep ${extra.join(" ")} exited ${code}: ${stderr}${[...workerLogs.values()].map((log) => `\nworker: ${log()}`).join("")}`,
    );
  const sweeps = path.join(root, "sweeps");
  const dirs = fs.readdirSync(sweeps);
  if (dirs.length !== 1) throw new Error(`expected one experiment in ${sweeps}, found ${dirs}`);
  const dir = path.join(sweeps, dirs[0] as string);
  const config = JSON.parse(fs.readFileSync(path.join(dir, "config.json"), "utf8")) as {
    createdAt: string;
  };
  const summary = JSON.parse(fs.readFileSync(path.join(dir, "summary.json"), "utf8")) as {
    finishedAt: string;
    status: string;
  };
  if (summary.status !== "completed")
    throw new Error(`${name}: the experiment ended ${summary.status}`);
  const mine = arrivals.slice(first);
  step(`  ${name}: ${(wallMs / 1000).toFixed(1)} s, ${mine.length} calls`);
  return {
    wallMs,
    experimentMs: Date.parse(summary.finishedAt) - Date.parse(config.createdAt),
    calls: mine.length,
    peakCalls: peak(mine),
    dir,
  };
}

/** results.jsonl's lines by run key. */
const lines = (dir: string) => readExperimentResults(dir).sort((a, b) => (a.key < b.key ? -1 : 1));

/** A line without what names its run (its id) and without the billed figures. */
function figures(l: ExperimentResultLine): string {
  const { runId: _runId, metrics, ...rest } = l;
  const kept = Object.entries(metrics).filter(([k]) => !(BILLED as readonly string[]).includes(k));
  return JSON.stringify({ ...rest, metrics: Object.fromEntries(kept) });
}

/** Every way's lines against the local one's: mismatches (fatal), and billed differences. */
function compare(dirs: Record<Way, string>): {
  mismatches: string[];
  billed: { way: Way; key: string; metric: string; local: number | null; got: number | null }[];
} {
  const want = lines(dirs.local);
  const mismatches: string[] = [];
  const billed: ReturnType<typeof compare>["billed"] = [];
  if (want.length !== RUNS) mismatches.push(`local: ${want.length} lines, not ${RUNS}`);
  for (const l of want)
    if (l.status !== "completed") mismatches.push(`local ${l.key}: ${l.status}`);
  for (const way of WAYS) {
    if (way === "local") continue;
    const got = lines(dirs[way]);
    if (got.length !== want.length)
      mismatches.push(`${way}: ${got.length} lines, local ${want.length}`);
    for (const [k, w] of want.entries()) {
      const g = got[k];
      if (g === undefined || g.key !== w.key) {
        mismatches.push(`${way}: no line for ${w.key}`);
        continue;
      }
      if (figures(g) !== figures(w))
        mismatches.push(`${way} ${w.key}:\n    local ${figures(w)}\n    ${way} ${figures(g)}`);
      for (const m of BILLED)
        if (g.metrics[m] !== w.metrics[m])
          billed.push({
            way,
            key: w.key,
            metric: m,
            local: w.metrics[m] ?? null,
            got: g.metrics[m] ?? null,
          });
    }
  }
  return { mismatches, billed };
}

const measured: Record<Way, Measured[]> = { local: [], worker1: [], workers2: [] };
let comparison: ReturnType<typeof compare> | null = null;
try {
  redis = await startRedisServer({ persistent: false });
  for (let k = 0; k < runs; k++) {
    step(`local ${k + 1}/${runs}`);
    measured.local.push(await experiment(`local-${k}`, ["--jobs", "1"]));
    for (const way of ["worker1", "workers2"] as const) {
      step(`${way} ${k + 1}/${runs}`);
      const started: ChildProcess[] = [];
      for (let w = 0; w < (way === "worker1" ? 1 : 2); w++)
        started.push(await startWorker(redis.url));
      try {
        measured[way].push(await experiment(`${way}-${k}`, ["--queue", redis.url]));
      } finally {
        await Promise.all(started.map(stopWorker));
      }
    }
    // The first repeat's three experiments are the ones compared.
    if (k === 0)
      comparison = compare({
        local: (measured.local[0] as Measured).dir,
        worker1: (measured.worker1[0] as Measured).dir,
        workers2: (measured.workers2[0] as Measured).dir,
      });
  }
} finally {
  await Promise.all([...workers].map(stopWorker));
  await redis?.close();
  await server.close();
  fs.rmSync(work, { recursive: true, force: true });
}

const round = (n: number, d = 0) => Math.round(n * 10 ** d) / 10 ** d;
const med = (way: Way, f: (m: Measured) => number) => round(median(measured[way].map(f)));
const wallMs = Object.fromEntries(WAYS.map((w) => [w, med(w, (m) => m.wallMs)])) as Record<
  Way,
  number
>;
const experimentMs = Object.fromEntries(
  WAYS.map((w) => [w, med(w, (m) => m.experimentMs)]),
) as Record<Way, number>;
const ratio = round(wallMs.workers2 / wallMs.worker1, 3);
const experimentRatio = round(experimentMs.workers2 / experimentMs.worker1, 3);
const calls = Object.fromEntries(WAYS.map((w) => [w, measured[w][0]?.calls ?? 0])) as Record<
  Way,
  number
>;
const peakCalls = Object.fromEntries(
  WAYS.map((w) => [w, Math.max(...measured[w].map((m) => m.peakCalls))]),
) as Record<Way, number>;
const { mismatches, billed } = comparison ?? { mismatches: ["nothing compared"], billed: [] };
const result = {
  at: new Date().toISOString(),
  machine: { cores: os.availableParallelism(), loadAvg1m: round(load0, 2) },
  runs,
  callMs: CALL_MS,
  runsPerExperiment: RUNS,
  calls,
  peakCallsInFlight: peakCalls,
  wallMs,
  experimentMs,
  ratio2to1: ratio,
  experimentRatio2to1: experimentRatio,
  resultsAgree: mismatches.length === 0,
  mismatches,
  billedDifferences: billed,
};
const file = path.join(ROOT, "bench", "results", "queue-experiment.json");
fs.mkdirSync(path.dirname(file), { recursive: true });
fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
console.log(
  [
    `LLM experiment through Redis (${RUNS} runs, ${calls.local} calls at ${CALL_MS} ms; ${result.machine.cores} cores, load ${result.machine.loadAvg1m}; medians of ${runs})`,
    `  local --jobs 1: ${s(wallMs.local)} (experiment ${s(experimentMs.local)}, at most ${peakCalls.local} call(s) in flight)`,
    `  1 worker:       ${s(wallMs.worker1)} (experiment ${s(experimentMs.worker1)}, at most ${peakCalls.worker1} in flight)`,
    `  2 workers:      ${s(wallMs.workers2)} (experiment ${s(experimentMs.workers2)}, at most ${peakCalls.workers2} in flight)`,
    `  2 workers / 1 worker: ${ratio} (experiment ${experimentRatio})`,
    billed.length === 0
      ? "  billed tokens and $: identical in the three"
      : `  billed figures that differ from local: ${billed.map((b) => `${b.way} ${b.key} ${b.metric} ${b.local}→${b.got}`).join(", ")}`,
    `wrote ${path.relative(ROOT, file)}`,
  ].join("\n"),
);
if (mismatches.length > 0) {
  console.error(`RESULTS DIFFER between the three experiments:\n  ${mismatches.join("\n  ")}`);
  process.exitCode = 1;
}
