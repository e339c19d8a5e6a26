// The sweep's speed and memory, as a user runs it: `agenticbt sweep` in a fresh process each time
// (the built CLI through bench/e2e-child.mjs: its CPU time of every thread and its peak RSS).
// `tsx bench/sweep-bench.ts [runs]` (default 5 GOOG sweeps, 3 minute ones); writes
// bench/results/sweep.json.
//
// - GOOG grid: the bundled sma-crossover, `--param longShort=true --allow-short --commission
//   0.002 --grid fast=5:50:5 --grid slow=10:200:10 --constraint "fast < slow" --maximize sharpe`,
//   175 combinations (backtesting.py's optimize of the same grid: 4.7-5.2 s here, 34-37 runs/s).
//   Two rates: the sweep's (175 ÷ summary.json's `timings.sweepMs`, from the first combination
//   handed out to the last result, workers' start included; the process's start, module loading,
//   data load, strategy compile, summary and report are outside it), which the goal is on, and
//   the whole command's (175 ÷ the wall time from spawn to exit). Beside the sweep's rate, the
//   same window in CPU time (summary.json's `timings.sweepCpuMs`, every thread), which the
//   neighbours' load does not stretch.
// - Warm session: the same grid through the library's sweep() in one process, 1 + [runs]
//   times (bench/sweep-warm-child.mjs): the first compiles the code, the others' median is the
//   rate in a warm session, which is how backtesting.py's 4.7-5.2 s is measured (in a Python
//   session, imports done; Python does not compile as it goes, so its first run is as fast).
// - Minute workload: 1,000,000 minute bars × 20 combinations (fast 5,10,15,20 × slow 30..70 step
//   10, `--allow-short --commission 0.001 --param longShort=true`), the whole command's wall time
//   and its peak RSS.
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { SweepSummaryFile } from "../dist/sweep/sweep-dir.js";
import { MINUTE_DIR, minuteCsv } from "./generate-series.js";
import { GOOG_GRID_ARGS } from "./goog-grid.js";
import { median } from "./median.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const runs = Number(process.argv[2] ?? 5);
const GOALS = { combosPerSecond: 1000, minuteSeconds: 10, minutePeakMB: 600 } as const;
const STRATEGY = path.join(ROOT, "strategies", "sma-crossover.ts");
const runsDir = path.join(MINUTE_DIR, `sweep-bench-${process.pid}`, "runs");

interface Measured {
  wallMs: number;
  cpuMs: number;
  maxRssMB: number;
  summary: SweepSummaryFile;
}

/** One `agenticbt sweep … --json` in a fresh process. */
function sweepCli(args: string[]): Measured {
  const t0 = performance.now();
  const r = spawnSync(
    process.execPath,
    [path.join(ROOT, "bench", "e2e-child.mjs"), "sweep", ...args, "--runs-dir", runsDir, "--json"],
    { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 26 },
  );
  const wallMs = performance.now() - t0;
  const line = r.stderr.split("\n").find((l) => l.startsWith("BENCH "));
  if (r.status !== 0 || line === undefined)
    throw new Error(`agenticbt sweep exited ${r.status}: ${r.stderr}`);
  const b = JSON.parse(line.slice(6)) as { cpuMs: number; maxRssMB: number };
  return { wallMs, cpuMs: b.cpuMs, maxRssMB: b.maxRssMB, summary: JSON.parse(r.stdout) };
}

const load0 = os.loadavg()[0] as number;
const verdict = (ok: boolean) => (ok ? "met" : "MISSED");

// GOOG grid.
const goog: Measured[] = [];
for (let k = 0; k < runs; k++) {
  const m = sweepCli([...GOOG_GRID_ARGS]);
  goog.push(m);
  const n = m.summary.done;
  const t = m.summary.timings;
  process.stdout.write(
    `GOOG grid ${k + 1}: ${n} combinations, sweep ${t.sweepMs.toFixed(0)} ms (${((n / t.sweepMs) * 1000).toFixed(0)}/s), CPU ${t.sweepCpuMs.toFixed(0)} ms (${((n / t.sweepCpuMs) * 1000).toFixed(0)}/s), command ${m.wallMs.toFixed(0)} ms (${((n / m.wallMs) * 1000).toFixed(0)}/s), CPU ${m.cpuMs.toFixed(0)} ms, peak RSS ${m.maxRssMB.toFixed(0)} MB, best ${JSON.stringify(m.summary.best?.settings)}\n`,
  );
}
const combos = goog[0]?.summary.done ?? 0;
const sweepRate = median(goog.map((m) => (m.summary.done / m.summary.timings.sweepMs) * 1000));
const sweepCpuRate = median(
  goog.map((m) => (m.summary.done / m.summary.timings.sweepCpuMs) * 1000),
);
const commandRate = median(goog.map((m) => (m.summary.done / m.wallMs) * 1000));
const googCpuMs = median(goog.map((m) => m.cpuMs));
const googWallMs = median(goog.map((m) => m.wallMs));
const best = goog[0]?.summary.best?.settings ?? null;
process.stdout.write(
  `GOOG grid (${combos} combinations), median of ${runs}: sweep ${sweepRate.toFixed(0)} combinations/s (goal ≥ ${GOALS.combosPerSecond}: ${verdict(sweepRate >= GOALS.combosPerSecond)}), ${sweepCpuRate.toFixed(0)}/s of its CPU time; whole command ${(googWallMs / 1000).toFixed(2)} s = ${commandRate.toFixed(0)} combinations/s, CPU ${(googCpuMs / 1000).toFixed(2)} s; best ${JSON.stringify(best)}\n`,
);

// Warm session.
interface WarmSweep {
  combinations: number;
  sweepMs: number;
  sweepCpuMs: number;
}
const warmLines = execFileSync(
  process.execPath,
  [path.join(ROOT, "bench", "sweep-warm-child.mjs"), String(runs + 1)],
  { cwd: ROOT, encoding: "utf8" },
)
  .trim()
  .split("\n")
  .map((l) => JSON.parse(l) as WarmSweep);
const warm = warmLines.slice(1);
const warmRate = median(warm.map((w) => (w.combinations / w.sweepMs) * 1000));
const warmCpuRate = median(warm.map((w) => (w.combinations / w.sweepCpuMs) * 1000));
const firstWarm = warmLines[0] as WarmSweep;
process.stdout.write(
  `GOOG grid in a warm session (library sweep(), median of ${warm.length} after the first): ${warmRate.toFixed(0)} combinations/s, ${warmCpuRate.toFixed(0)}/s of CPU time (the first: ${((firstWarm.combinations / firstWarm.sweepMs) * 1000).toFixed(0)}/s)\n`,
);

// Minute workload.
const csv = minuteCsv();
const minute: Measured[] = [];
const minuteRuns = Math.max(1, Math.min(runs, 3));
for (let k = 0; k < minuteRuns; k++) {
  const m = sweepCli([
    STRATEGY,
    "--data",
    csv,
    "--param",
    "longShort=true",
    "--allow-short",
    "--commission",
    "0.001",
    "--grid",
    "fast=5,10,15,20",
    "--grid",
    "slow=30:70:10",
  ]);
  minute.push(m);
  process.stdout.write(
    `minute ${k + 1}: ${m.summary.done} combinations, command ${(m.wallMs / 1000).toFixed(2)} s (sweep ${(m.summary.timings.sweepMs / 1000).toFixed(2)} s), CPU ${(m.cpuMs / 1000).toFixed(2)} s, peak RSS ${m.maxRssMB.toFixed(0)} MB\n`,
  );
}
const minuteWallMs = median(minute.map((m) => m.wallMs));
const minuteCpuMs = median(minute.map((m) => m.cpuMs));
const minutePeakMB = Math.max(...minute.map((m) => m.maxRssMB));
process.stdout.write(
  `1,000,000 minute bars × ${minute[0]?.summary.done} combinations, median of ${minuteRuns}: whole command ${(minuteWallMs / 1000).toFixed(2)} s (goal ≤ ${GOALS.minuteSeconds} s: ${verdict(minuteWallMs <= GOALS.minuteSeconds * 1000)}), CPU ${(minuteCpuMs / 1000).toFixed(2)} s; peak RSS ${minutePeakMB.toFixed(0)} MB, the highest (goal ≤ ${GOALS.minutePeakMB} MB: ${verdict(minutePeakMB <= GOALS.minutePeakMB)})\n`,
);
const load1 = os.loadavg()[0] as number;
process.stdout.write(
  `load average ${load0.toFixed(2)} → ${load1.toFixed(2)} (${os.availableParallelism()} cores)\n`,
);

fs.rmSync(path.dirname(runsDir), { recursive: true, force: true });
fs.mkdirSync(path.join(ROOT, "bench", "results"), { recursive: true });
const rounded = (ms: number) => Math.round(ms);
fs.writeFileSync(
  path.join(ROOT, "bench", "results", "sweep.json"),
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      node: process.version,
      cores: os.availableParallelism(),
      loadAverage: [load0, load1],
      goals: GOALS,
      goog: {
        combinations: combos,
        runs,
        best,
        sweepCombinationsPerSecond: Math.round(sweepRate),
        sweepCpuCombinationsPerSecond: Math.round(sweepCpuRate),
        warmSessionCombinationsPerSecond: Math.round(warmRate),
        warmSessionCpuCombinationsPerSecond: Math.round(warmCpuRate),
        commandCombinationsPerSecond: Math.round(commandRate),
        commandWallMs: rounded(googWallMs),
        commandCpuMs: rounded(googCpuMs),
        met: sweepRate >= GOALS.combosPerSecond,
        warmSession: warmLines,
        each: goog.map((m) => ({
          sweepMs: m.summary.timings.sweepMs,
          sweepCpuMs: m.summary.timings.sweepCpuMs,
          wallMs: rounded(m.wallMs),
          cpuMs: rounded(m.cpuMs),
          maxRssMB: Math.round(m.maxRssMB),
        })),
      },
      minute: {
        bars: 1_000_000,
        combinations: minute[0]?.summary.done ?? 0,
        runs: minuteRuns,
        commandWallMs: rounded(minuteWallMs),
        commandCpuMs: rounded(minuteCpuMs),
        peakRssMB: Math.round(minutePeakMB),
        met: {
          time: minuteWallMs <= GOALS.minuteSeconds * 1000,
          memory: minutePeakMB <= GOALS.minutePeakMB,
        },
        each: minute.map((m) => ({
          sweepMs: m.summary.timings.sweepMs,
          wallMs: rounded(m.wallMs),
          cpuMs: rounded(m.cpuMs),
          maxRssMB: Math.round(m.maxRssMB),
        })),
      },
    },
    null,
    2,
  )}\n`,
);
process.stdout.write("wrote bench/results/sweep.json\n");
