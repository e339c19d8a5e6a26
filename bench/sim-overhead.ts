// The simulation of the minute workload in one process, as a run drives it and without what a run
// adds: `node --import tsx bench/sim-overhead.ts [rounds] [kinds]`. Prints simulateMs, CPU time,
// GC pauses and heap for the bare core (no records, no listener), with records, and as
// runBacktest calls it (records, the plain renderer, checkpoints). `1 run` runs one simulation of
// one kind (a CPU profile, or a process per simulation as the CLI has); with --expose-gc the heap
// is what the results hold.
import fs from "node:fs";
import path from "node:path";
import { plainRenderer } from "../dist/cli/plain-renderer.js";
import { DEFAULT_CODE_CHECKPOINT_MIN_MS } from "../dist/config/run-settings.js";
import { brokerConfig } from "../dist/engine/broker-config.js";
import { timeLabel } from "../dist/engine/calendar.js";
import { Checkpointer, MemoryTally } from "../dist/rundir/checkpoint.js";
import { loadData } from "../dist/runner/load-data.js";
import { simulate } from "../dist/runner/simulate.js";
import type { Strategy } from "../dist/strategy/types.js";
import { gcClock } from "./gc-time.js";
import { MINUTE_BROKER, MINUTE_DIR, MINUTE_PARAMS, minuteCsv } from "./generate-series.js";

// The built modules (`npm run build`), as the CLI runs them: tsx's on-the-fly build of src/ ran
// the same loop 10-30 % slower here. The strategy is loaded as the CLI loads it.
const { loadStrategy } = await import("../dist/runner/load-strategy.js");
const smaCrossover = await loadStrategy(
  path.join(import.meta.dirname, "../strategies/sma-crossover.ts"),
);

const rounds = Number(process.argv[2] ?? 3);
const kinds = (process.argv[3] ?? "bare,records,run").split(",") as ("bare" | "records" | "run")[];
const tmp = MINUTE_DIR;
const csv = minuteCsv();
const { data } = loadData({ data: [{ file: csv }] } as Parameters<typeof loadData>[0]);
const broker = brokerConfig(MINUTE_BROKER);
const strategy = smaCrossover as Strategy<unknown>;
const params = MINUTE_PARAMS;
const dir = fs.mkdtempSync(path.join(tmp, "sim-overhead-"));
const devNull = fs.createWriteStream("/dev/null");

const gcMs = gcClock();

/** The simulation's wall and CPU milliseconds (CPU time is the steadier on a shared machine). */
async function once(
  kind: "bare" | "records" | "run",
): Promise<{ ms: number; cpuMs: number; gc: number; heapMB: number }> {
  const label = (i: number) => timeLabel(data.times[i] ?? 0, true);
  const checkpoint =
    kind === "run"
      ? new Checkpointer({
          dir,
          runId: "bench",
          every: 1000,
          minIntervalMs: DEFAULT_CODE_CHECKPOINT_MIN_MS,
          label,
          memory: new MemoryTally(),
          usage: () => null,
          transcript: null,
          expected: null,
        })
      : null;
  const gc0 = gcMs();
  const cpu0 = process.cpuUsage();
  const out = await simulate({
    data,
    broker,
    strategy,
    params,
    records: kind !== "bare",
    ...(kind === "run" ? { onEvent: plainRenderer(devNull), checkpoint } : {}),
  });
  const cpu = process.cpuUsage(cpu0);
  // GC entries arrive on a later turn of the event loop.
  await new Promise((resolve) => setImmediate(resolve));
  // With --expose-gc, the heap the run's results hold (otherwise whatever is not collected yet).
  (globalThis as { gc?: () => void }).gc?.();
  const heapMB = process.memoryUsage().heapUsed / 2 ** 20;
  return { ms: out.simulateMs, cpuMs: (cpu.user + cpu.system) / 1000, gc: gcMs() - gc0, heapMB };
}

for (let r = 0; r < rounds; r++) {
  const row: string[] = [];
  for (const kind of kinds) {
    const { ms, cpuMs, gc, heapMB } = await once(kind);
    row.push(
      `${kind} ${ms.toFixed(0)} ms (${(data.times.length / ms / 1000).toFixed(2)}M bars/s, CPU ${cpuMs.toFixed(0)} ms, GC ${gc.toFixed(0)} ms, heap ${heapMB.toFixed(0)} MB)`,
    );
  }
  console.log(row.join(", "));
}
fs.rmSync(dir, { recursive: true, force: true });
devNull.end();
