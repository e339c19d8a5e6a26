// What `agenticbt resume` saves: `tsx bench/resume-bench.ts [runs] [minute|zscore ...]`. For each
// workload (1,000,000 minute bars), the whole `run` command uninterrupted (the median of `runs`),
// then a run interrupted once 60% of its bars are done (default checkpoints: the last one falls
// before that bar) and the whole `resume` command that finishes it. Checks that the resumed
// outputs equal the uninterrupted run's, and writes bench/results/resume.json.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { brokerConfig } from "../dist/engine/broker-config.js";
import { RUN_FILE, SIMULATION_OUTPUTS } from "../dist/rundir/layout.js";
import type { RunResult } from "../dist/rundir/run-result.js";
import { type RunHandle, runBacktest } from "../dist/runner/run-backtest.js";
import { DEFAULT_RECALL_OPTIONS, type RunConfig } from "../dist/runner/run-config.js";
import { MINUTE_BROKER, MINUTE_DIR, MINUTE_PARAMS, minuteCsv } from "./generate-series.js";
import { median } from "./median.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const argv = process.argv.slice(2);
const runs = Number(argv.find((a) => /^\d+$/.test(a)) ?? 3);
const WORKLOADS = {
  minute: {
    strategy: path.join(ROOT, "strategies", "sma-crossover.ts"),
    params: { ...MINUTE_PARAMS },
    cli: ["--param", "longShort=true"],
  },
  zscore: {
    strategy: path.join(ROOT, "bench", "strategies", "zscore-loop.ts"),
    params: {},
    cli: [],
  },
} as const;
type Workload = keyof typeof WORKLOADS;
const chosen = (argv.filter((a) => a in WORKLOADS) as Workload[]).concat();
const workloads: Workload[] = chosen.length ? chosen : ["minute", "zscore"];
const KILL_AT = 0.6;
/** The whole `resume` command ÷ the whole `run` command, at most. */
const GOAL = 0.5;
const csv = minuteCsv();
const base = path.join(MINUTE_DIR, `resume-${process.pid}`);

function cli(args: string[]): { ms: number; result: RunResult } {
  const t0 = performance.now();
  const prof =
    process.env.RESUME_PROF && args[0] === "resume"
      ? ["--cpu-prof", "--cpu-prof-dir", process.env.RESUME_PROF]
      : [];
  const r = spawnSync(
    process.execPath,
    [...prof, path.join(ROOT, "bin", "agenticbt"), ...args, "--json"],
    {
      encoding: "utf8",
      maxBuffer: 1 << 28,
    },
  );
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`agenticbt ${args[0]} exited ${r.status}: ${r.stderr}`);
  return { ms, result: JSON.parse(r.stdout) as RunResult };
}

/** The config `agenticbt run` makes of the workload's options. */
function config(w: Workload, runsRoot: string): RunConfig {
  return {
    strategyPath: WORKLOADS[w].strategy,
    data: [{ file: csv }],
    broker: brokerConfig(MINUTE_BROKER),
    params: WORKLOADS[w].params,
    from: null,
    to: null,
    name: null,
    runsRoot,
    strict: false,
    tz: null,
    agent: null,
    presets: [],
    memoryFrom: null,
    recall: DEFAULT_RECALL_OPTIONS,
  };
}

const out: Record<string, unknown> = {};
for (const w of workloads) {
  const runArgs = [
    "run",
    WORKLOADS[w].strategy,
    "--data",
    csv,
    "--commission",
    String(MINUTE_BROKER.commissionRate),
    "--allow-short",
    ...WORKLOADS[w].cli,
  ];
  const whole: number[] = [];
  let ref: RunResult | null = null;
  for (let k = 0; k < runs; k++) {
    const runsDir = path.join(base, `${w}-whole-${k}`);
    const r = cli([...runArgs, "--runs-dir", runsDir]);
    whole.push(r.ms);
    ref = r.result;
  }
  if (ref === null) throw new Error("no uninterrupted run");
  const refDir = path.join(base, `${w}-whole-${runs - 1}`, ref.id);
  const bars = ref.period.bars;
  let handle: RunHandle | null = null;
  const cut = await runBacktest(config(w, path.join(base, `${w}-cut`)), {
    onStart: (h) => {
      handle = h;
    },
    onEvent: (e) => {
      if (e.type === "progress" && e.done >= bars * KILL_AT)
        (handle as RunHandle | null)?.interrupt();
    },
  });
  if (cut.status !== "interrupted") throw new Error(`the cut run ended ${cut.status}`);
  const dir = path.join(base, `${w}-cut`, cut.id);
  const checkpoint = JSON.parse(fs.readFileSync(path.join(dir, RUN_FILE.checkpoint), "utf8"));
  const resumed = cli(["resume", dir]);
  for (const role of SIMULATION_OUTPUTS) {
    const f = RUN_FILE[role];
    if (!fs.readFileSync(path.join(dir, f)).equals(fs.readFileSync(path.join(refDir, f)))) {
      throw new Error(`${w}: the resumed ${f} differs from the uninterrupted run's`);
    }
  }
  const wholeMs = median(whole);
  const record = resumed.result.resumed?.at(-1);
  const row = {
    bars,
    wholeMs: Math.round(wholeMs),
    wholeTimings: ref.timings,
    interruptedAtBar: cut.period.bars,
    checkpointBar: checkpoint.bar,
    continued: record?.continued ?? null,
    resumeMs: Math.round(resumed.ms),
    resumeTimings: resumed.result.timings,
    ratio: Number((resumed.ms / wholeMs).toFixed(3)),
    simulateRatio: Number(
      ((resumed.result.timings?.simulateMs ?? 0) / (ref.timings?.simulateMs ?? 1)).toFixed(3),
    ),
  };
  out[w] = row;
  // The goal is on the strategy whose simulation is most of its run; the minute workload's figure
  // is mostly the fixed costs (start, load, outputs) that both commands pay.
  const goal = w === "zscore" ? (row.ratio <= GOAL ? "met" : "MISSED") : "no goal";
  console.log(
    `${w}: whole run ${row.wholeMs} ms (median of ${runs}); interrupted at bar ${row.interruptedAtBar}, ` +
      `checkpoint at bar ${row.checkpointBar}; resume ${row.resumeMs} ms = ${row.ratio} of the whole ` +
      `(simulate ${row.simulateRatio}); outputs identical; ≤ ${GOAL}: ${goal}`,
  );
  console.log(
    `  whole  ${JSON.stringify(ref.timings)}\n  resume ${JSON.stringify(resumed.result.timings)}`,
  );
}
fs.rmSync(base, { recursive: true, force: true });
const file = path.join(ROOT, "bench", "results", "resume.json");
fs.mkdirSync(path.dirname(file), { recursive: true });
fs.writeFileSync(
  file,
  `${JSON.stringify({ at: new Date().toISOString(), runs, ...out }, null, 2)}\n`,
);
console.log(`wrote ${path.relative(ROOT, file)}`);
