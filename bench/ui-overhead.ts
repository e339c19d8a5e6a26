/**
 * The live view's overhead: the same 1,000,000-bar run (SMA crossover, the real CLI through
 * bench/e2e-child.mjs) in a tmux pseudo-terminal, with the ink view and with no renderer
 * (`--no-ui --quiet`), interleaved in ABBA order (ink, none, none, ink, ...) so a drift in the
 * machine's load falls on both alike; the ratio of the medians. The time is measured inside the
 * process (e2e-child: `main()` start to end, the lazy import of ink and the final frame included),
 * so tmux's own start-up is not in it. CPU time (the run's process and the view's, as the view
 * reports it on closing) is reported beside it: on a shared machine it moves far less than wall time.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { TmuxPane } from "../test/helpers/tmux.js";
import { randomWalk, writeCsv } from "./generate-series.js";
import { median } from "./median.js";

const BARS = Number(process.env.BENCH_BARS ?? 1_000_000);
const ROOT = path.resolve(import.meta.dirname, "..");
const GOAL = 1.05;

interface Timed {
  ms: number;
  cpuMs: number;
}

async function timedRun(csv: string, tmp: string, k: number, ui: boolean): Promise<Timed> {
  const timing = path.join(tmp, `timing-${k}.txt`);
  const argv = [
    process.execPath,
    path.join(ROOT, "bench", "e2e-child.mjs"),
    "run",
    path.join(ROOT, "strategies", "sma-crossover.ts"),
    "--data",
    csv,
    "--commission",
    "0.001",
    "--runs-dir",
    path.join(tmp, `runs-${k}`),
    ...(ui ? [] : ["--no-ui", "--quiet"]),
  ];
  // stdout is the pane (a TTY); stderr, where e2e-child reports its time, goes to a file.
  const pane = new TmuxPane(["sh", "-c", `exec "$@" 2> ${timing}`, "sh", ...argv], { cwd: tmp });
  try {
    const code = await pane.waitForExit();
    const line = fs
      .readFileSync(timing, "utf8")
      .split("\n")
      .find((l) => l.startsWith("BENCH "));
    if (code !== 0 || !line) throw new Error(`ui-overhead run ${k} failed (exit ${code})`);
    const b = JSON.parse(line.slice(6)) as Timed;
    return { ms: b.ms, cpuMs: b.cpuMs };
  } finally {
    pane.kill();
  }
}

export interface UiOverhead {
  bars: number;
  inkMs: number[];
  noneMs: number[];
  /** Ratio of the medians: the figure held against the goal. */
  ratio: number;
  /** Ratio of the fastest runs: less sensitive to other load on a shared machine. */
  ratioOfBest: number;
  /** The median of each round's ink/none ratio (the two runs of a round are back to back):
   * robust to the machine's speed changing within the series, which moves both medians. */
  medianPairedRatio: number;
  /** CPU time of the run's process and the view's, each run, and the ratio of the
   * medians: what the view costs in work, whatever else the machine does. */
  inkCpuMs: number[];
  noneCpuMs: number[];
  cpuRatio: number;
  /** The 1-minute load average before and after: how quiet the machine was. */
  loadAverage: [number, number];
  goal: number;
}

export async function measureUiOverhead(
  bars = BARS,
  rounds = Number(process.env.UI_ROUNDS ?? 10),
): Promise<UiOverhead> {
  const load0 = os.loadavg()[0] as number;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-ui-bench-"));
  try {
    const csv = path.join(tmp, "BENCH.csv");
    writeCsv(csv, randomWalk(bars));
    const ink: Timed[] = [];
    const none: Timed[] = [];
    let k = 0;
    for (let r = 0; r < rounds; r++) {
      // ABBA: even rounds ink first, odd rounds none first.
      const order = r % 2 === 0 ? [true, false] : [false, true];
      for (const ui of order) (ui ? ink : none).push(await timedRun(csv, tmp, k++, ui));
    }
    const inkMs = ink.map((t) => t.ms);
    const noneMs = none.map((t) => t.ms);
    const inkCpuMs = ink.map((t) => t.cpuMs);
    const noneCpuMs = none.map((t) => t.cpuMs);
    return {
      bars,
      inkMs,
      noneMs,
      ratio: median(inkMs) / median(noneMs),
      ratioOfBest: Math.min(...inkMs) / Math.min(...noneMs),
      medianPairedRatio: median(inkMs.map((ms, r) => ms / (noneMs[r] as number))),
      inkCpuMs,
      noneCpuMs,
      cpuRatio: median(inkCpuMs) / median(noneCpuMs),
      loadAverage: [load0, os.loadavg()[0] as number],
      goal: GOAL,
    };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export function describeUiOverhead(u: UiOverhead): string {
  const s = (xs: number[]) => xs.map((x) => (x / 1000).toFixed(2)).join(" / ");
  return `live view overhead, ${u.bars.toLocaleString("en-US")} bars in a pseudo-TTY (load average ${u.loadAverage.map((l) => l.toFixed(1)).join(" → ")}): ink ${s(u.inkMs)} s, none ${s(u.noneMs)} s; ratio of medians ${u.ratio.toFixed(3)}, of the fastest ${u.ratioOfBest.toFixed(3)}, median of the rounds' ratios ${u.medianPairedRatio.toFixed(3)} (goal <= ${u.goal}: ${u.ratio <= u.goal ? "met" : "MISSED"}); CPU ink ${s(u.inkCpuMs)} s, none ${s(u.noneCpuMs)} s, ratio of medians ${u.cpuRatio.toFixed(3)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(describeUiOverhead(await measureUiOverhead()));
}
