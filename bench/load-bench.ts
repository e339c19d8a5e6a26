import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { prng } from "./generate-series.js";

// Loading (parse + validate) of a 1,000,000-row CSV of minute bars, and the loader's memory per
// row. Each load runs in its own process (the built loader, dist/), so its peak resident set is
// the loader's alone; the machine is shared, so the time is the median of five loads.
const ROWS = Number(process.env.LOAD_BENCH_ROWS ?? 1_000_000);
const ROOT = path.resolve(import.meta.dirname, "..");
const GOAL_MS = 800;
const GOAL_BYTES_PER_ROW = 100;

/** A random-walk CSV of minute bars `YYYY-MM-DD HH:MM:SS,o,h,l,c,v`, written in 1 MiB pieces. */
function writeMinuteCsv(file: string, n: number): void {
  const rnd = prng(7);
  const fd = fs.openSync(file, "w");
  fs.writeSync(fd, "Date,Open,High,Low,Close,Volume\n");
  let chunk = "";
  let price = 100;
  const start = Date.UTC(2015, 0, 1);
  for (let i = 0; i < n; i++) {
    const t = new Date(start + i * 60_000).toISOString();
    const o = price;
    const c = Math.max(1, Math.round(o * (1 + (rnd() - 0.5) * 0.002) * 100) / 100);
    const h = Math.round(Math.max(o, c) * (1 + rnd() * 0.001) * 100) / 100;
    const l = Math.round(Math.min(o, c) * (1 - rnd() * 0.001) * 100) / 100;
    const v = Math.floor(100 + rnd() * 10_000);
    chunk += `${t.slice(0, 10)} ${t.slice(11, 19)},${o},${Math.max(h, o, c)},${Math.min(l, o, c)},${c},${v}\n`;
    price = c;
    if (chunk.length > 1 << 20) {
      fs.writeSync(fd, chunk);
      chunk = "";
    }
  }
  fs.writeSync(fd, chunk);
  fs.closeSync(fd);
}

interface Load {
  ms: number;
  rows: number;
  rssBefore: number;
  maxRss: number;
  bytesPerRow: number;
}

function load(file: string): Load {
  const child = spawnSync(
    process.execPath,
    ["--expose-gc", path.join(ROOT, "bench", "load-child.mjs"), file],
    { encoding: "utf8" },
  );
  if (child.status !== 0) throw new Error(`load failed: ${child.stderr}`);
  return JSON.parse(child.stdout) as Load;
}

export interface LoadFigures {
  rows: number;
  csvMB: number;
  loadSeconds: number;
  loadRunsSeconds: number[];
  bytesPerRow: number;
  goalSeconds: number;
  goalBytesPerRow: number;
}

export function measureLoad(): LoadFigures {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-load-bench-"));
  try {
    const csv = path.join(tmp, "MINUTES.csv");
    writeMinuteCsv(csv, ROWS);
    const runs = [0, 1, 2, 3, 4].map(() => load(csv));
    const sorted = [...runs].sort((a, b) => a.ms - b.ms);
    const median = sorted[2] as Load;
    return {
      rows: median.rows,
      csvMB: Math.round((fs.statSync(csv).size / 1024 / 1024) * 10) / 10,
      loadSeconds: Math.round(median.ms) / 1000,
      loadRunsSeconds: runs.map((r) => Math.round(r.ms) / 1000),
      // The smallest growth is the loader's own need; larger ones are the collector's timing.
      bytesPerRow: Math.round(Math.min(...runs.map((r) => r.bytesPerRow))),
      goalSeconds: GOAL_MS / 1000,
      goalBytesPerRow: GOAL_BYTES_PER_ROW,
    };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const figures = measureLoad();
const ok = (b: boolean) => (b ? "met" : "MISSED");
console.log(
  `load (parse + validate), ${figures.rows.toLocaleString("en-US")} minute bars (${figures.csvMB} MB): median ${figures.loadSeconds.toFixed(3)} s of ${figures.loadRunsSeconds.map((s) => s.toFixed(3)).join(" / ")}; ${figures.bytesPerRow} bytes per row (peak RSS growth / rows)`,
);
console.log(
  `goals: load <= ${figures.goalSeconds} s ${ok(figures.loadSeconds <= figures.goalSeconds)}; memory <= ${figures.goalBytesPerRow} bytes per row ${ok(figures.bytesPerRow <= figures.goalBytesPerRow)}`,
);
const outDir = path.join(ROOT, "bench", "results");
fs.mkdirSync(outDir, { recursive: true });
const out = path.join(outDir, "load.json");
fs.writeFileSync(
  out,
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, ...figures }, null, 2)}\n`,
);
console.log(`wrote ${path.relative(ROOT, out)}`);
