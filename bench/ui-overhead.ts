/**
 * The live view's overhead: the same 1,000,000-bar run (SMA crossover, the real CLI through
 * bench/e2e-child.mjs) in a tmux pseudo-terminal, once with the ink view and once with no
 * renderer (`--no-ui --quiet`), alternated, three of each; the ratio of the medians. The time is
 * measured inside the process (e2e-child: `main()` start to end, the lazy import of ink and the
 * final frame included), so tmux's own start-up is not in it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { TmuxPane } from "../test/helpers/tmux.js";
import { randomWalk, writeCsv } from "./generate-series.js";

const BARS = Number(process.env.BENCH_BARS ?? 1_000_000);
const ROOT = path.resolve(import.meta.dirname, "..");
const GOAL = 1.05;

async function timedRun(csv: string, tmp: string, k: number, ui: boolean): Promise<number> {
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
    return (JSON.parse(line.slice(6)) as { ms: number }).ms;
  } finally {
    pane.kill();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

export interface UiOverhead {
  bars: number;
  inkMs: number[];
  noneMs: number[];
  /** Ratio of the medians: the figure held against the goal. */
  ratio: number;
  /** Ratio of the fastest runs: less sensitive to other load on a shared machine. */
  ratioOfBest: number;
  goal: number;
}

export async function measureUiOverhead(bars = BARS, rounds = 3): Promise<UiOverhead> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-ui-bench-"));
  try {
    const csv = path.join(tmp, "BENCH.csv");
    writeCsv(csv, randomWalk(bars));
    const inkMs: number[] = [];
    const noneMs: number[] = [];
    let k = 0;
    for (let r = 0; r < rounds; r++) {
      inkMs.push(await timedRun(csv, tmp, k++, true));
      noneMs.push(await timedRun(csv, tmp, k++, false));
    }
    return {
      bars,
      inkMs,
      noneMs,
      ratio: median(inkMs) / median(noneMs),
      ratioOfBest: Math.min(...inkMs) / Math.min(...noneMs),
      goal: GOAL,
    };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

export function describeUiOverhead(u: UiOverhead): string {
  const s = (xs: number[]) => xs.map((x) => (x / 1000).toFixed(2)).join(" / ");
  return `live view overhead, ${u.bars.toLocaleString("en-US")} bars in a pseudo-TTY: ink ${s(u.inkMs)} s, none ${s(u.noneMs)} s; ratio of medians ${u.ratio.toFixed(3)}, of the fastest ${u.ratioOfBest.toFixed(3)} (goal <= ${u.goal}: ${u.ratio <= u.goal ? "met" : "MISSED"})`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(describeUiOverhead(await measureUiOverhead()));
}
