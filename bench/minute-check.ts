// The minute workload, alone: `tsx bench/minute-check.ts [runs] [--save <file>]`. Runs the built
// CLI on the 1,000,000 minute bars, prints each run's phases and peak RSS and the median, and
// fingerprints every output file (result.json without its run-specific fields), so a speed change
// can be checked to leave every output byte as it was (`--save` keeps the fingerprints, a second
// call with `--compare <file>` checks them).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fse from "fs-extra";
import { MINUTE_DIR, minuteCsv } from "./generate-series.js";
import { median } from "./median.js";

// AGENTICBT_ROOT: another checkout's build to measure (a before/after comparison).
const ROOT = process.env.AGENTICBT_ROOT ?? path.resolve(import.meta.dirname, "..");
const argv = process.argv.slice(2);
const runs = Number(argv.find((a) => /^\d+$/.test(a)) ?? 3);
const opt = (name: string) => {
  const k = argv.indexOf(name);
  return k < 0 ? null : (argv[k + 1] ?? null);
};
const tmp = MINUTE_DIR;
const csv = minuteCsv();

/** What differs from run to run by nature: the run's id, wall-clock times, timings. The recall
 * index (SQLite, with its sync time inside) is compared by its size only. */
function normalise(text: string, id: string): string {
  return text
    .split(id)
    .join("<id>")
    .split(`runs-${process.pid}`)
    .join("<runs>")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>")
    .replace(/"timings":\{[^}]*\}/g, '"timings":<timings>')
    .replace(/"timings": \{[^}]*\}/g, '"timings": <timings>')
    .replace(/(timings\.\w+<\/td><td class="n">)[\d,.]+/g, "$1<ms>");
}

function fingerprints(dir: string, id: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fs.readdirSync(dir).sort()) {
    const file = path.join(dir, f);
    // checkpoint.json is saved on a timer, so which bar it holds depends on the speed.
    if (!fs.statSync(file).isFile() || f === "checkpoint.json") continue;
    const raw = fs.readFileSync(file);
    if (f.endsWith(".sqlite")) {
      out[f] = `size ${raw.length}`;
      continue;
    }
    const bytes = Buffer.from(normalise(raw.toString("latin1"), id), "latin1");
    out[f] = `${createHash("sha256").update(bytes).digest("hex").slice(0, 16)} ${bytes.length}`;
  }
  return out;
}

const rows: { ms: number; cpu: number; rss: number; t: Record<string, number> }[] = [];
let prints: Record<string, string> = {};
for (let k = 0; k < runs; k++) {
  const runsDir = path.join(tmp, `runs-${process.pid}`);
  fs.rmSync(runsDir, { recursive: true, force: true });
  const r = spawnSync(
    process.execPath,
    [
      ...(process.env.CPU_PROF ? ["--cpu-prof", "--cpu-prof-dir", process.env.CPU_PROF] : []),
      ...(process.env.NODE_FLAGS ? process.env.NODE_FLAGS.split(" ") : []),
      path.join(ROOT, "bench", "e2e-child.mjs"),
      "run",
      path.join(ROOT, "strategies", "sma-crossover.ts"),
      "--data",
      csv,
      "--commission",
      "0.001",
      "--param",
      "longShort=true",
      "--allow-short",
      "--runs-dir",
      runsDir,
      "--json",
    ],
    { cwd: tmp, encoding: "utf8", maxBuffer: 1 << 28 },
  );
  const line = r.stderr.split("\n").find((l) => l.startsWith("BENCH "));
  if (r.status !== 0 || !line) throw new Error(`run failed (${r.status}): ${r.stderr}`);
  const b = JSON.parse(line.slice(6)) as { ms: number; cpuMs: number; maxRssMB: number };
  const result = JSON.parse(r.stdout) as { id: string; timings: Record<string, number> };
  rows.push({ ms: b.ms, cpu: b.cpuMs, rss: b.maxRssMB, t: result.timings });
  console.log(
    `run ${k + 1}: ${(b.ms / 1000).toFixed(2)} s, CPU ${(b.cpuMs / 1000).toFixed(2)} s (load ${result.timings.loadMs}, simulate ${result.timings.simulateMs}, write ${result.timings.writeMs} ms), peak RSS ${b.maxRssMB.toFixed(0)} MB, load avg ${os.loadavg()[0]?.toFixed(2)}`,
  );
  const p = fingerprints(path.join(runsDir, result.id), result.id);
  if (process.env.KEEP) fse.copySync(path.join(runsDir, result.id), path.join(tmp, `keep-${k}`));
  const differ = k > 0 ? Object.keys(p).filter((f) => p[f] !== prints[f]) : [];
  if (differ.length) throw new Error(`outputs differ between runs: ${differ.join(", ")}`);
  prints = p;
}
// Each process has its own runs directory (two checks at once must not delete each other's run).
fs.rmSync(path.join(tmp, `runs-${process.pid}`), { recursive: true, force: true });
const key = (k: string) => median(rows.map((r) => r.t[k] as number));
console.log(
  `median of ${runs}: ${(median(rows.map((r) => r.ms)) / 1000).toFixed(2)} s, CPU ${(median(rows.map((r) => r.cpu)) / 1000).toFixed(2)} s (load ${key("loadMs")}, simulate ${key("simulateMs")} = ${(1e6 / (key("simulateMs") / 1000) / 1e6).toFixed(2)}M bars/s, write ${key("writeMs")} ms), peak RSS ${Math.max(...rows.map((r) => r.rss)).toFixed(0)} MB`,
);
const save = opt("--save");
if (save) fs.writeFileSync(save, `${JSON.stringify(prints, null, 2)}\n`);
const compare = opt("--compare");
if (compare) {
  const want = JSON.parse(fs.readFileSync(compare, "utf8")) as Record<string, string>;
  const bad = Object.keys({ ...want, ...prints }).filter((f) => want[f] !== prints[f]);
  if (bad.length) {
    console.error(
      `outputs changed: ${bad.map((f) => `${f} (${want[f]} → ${prints[f]})`).join(", ")}`,
    );
    process.exit(1);
  }
  console.log(`outputs identical to ${compare}: ${Object.keys(want).join(", ")}`);
}
