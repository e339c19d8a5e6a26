// The minute workload's simulation, two builds in one process, interleaved:
// `node --import tsx bench/sim-ab.ts <other checkout> [rounds] [kinds]`. Loads the data once and runs
// `simulate()` of this checkout's dist/ and of the other's (e.g. /work/main) by turns, so both see
// the same machine load; prints per build and kind the min and median of CPU time, wall time and
// GC pauses. Kinds: bare (no records, no listener), records, run (records, the plain renderer and
// checkpoints, as runBacktest drives it); and bare with other strategies: noop (an empty onBar: the
// loop alone), reads (the SMA's four indicator reads, no order).
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { gcClock } from "./gc-time.js";
import { MINUTE_BROKER, MINUTE_DIR, MINUTE_PARAMS, minuteCsv } from "./generate-series.js";

type Kind = "bare" | "records" | "run" | "noop" | "reads";
const other = process.argv[2];
if (!other) throw new Error("usage: bench/sim-ab.ts <other checkout> [rounds] [kinds]");
const rounds = Number(process.argv[3] ?? 5);
const kinds = (process.argv[4] ?? "bare,run").split(",") as Kind[];

/** One build's modules: everything a simulation needs, from that build's dist/. */
async function build(root: string) {
  const mod = (p: string) => import(pathToFileURL(path.join(root, "dist", p)).href);
  const [{ simulate }, { brokerConfig }, { timeLabel }, checkpoint, { plainRenderer }, loader] =
    await Promise.all([
      mod("runner/simulate.js"),
      mod("engine/broker-config.js"),
      mod("engine/calendar.js"),
      mod("rundir/checkpoint.js"),
      mod("cli/plain-renderer.js"),
      mod("runner/load-strategy.js"),
    ]);
  const strategy = await loader.loadStrategy(path.join(root, "strategies/sma-crossover.ts"));
  type View = { value: number | null; at(n: number): number | null };
  const noop = { name: "noop", onBar() {} };
  const reads = {
    name: "reads",
    init: (ctx: { indicator(n: string, p: object): View }) => ({
      fast: ctx.indicator("sma", { period: 10 }),
      slow: ctx.indicator("sma", { period: 30 }),
    }),
    onBar(_ctx: unknown, s: { fast: View; slow: View; n?: number }) {
      const f0 = s.fast.value;
      const s0 = s.slow.value;
      const f1 = s.fast.at(1);
      const s1 = s.slow.at(1);
      if (f0 === null || s0 === null || f1 === null || s1 === null) return;
      if (f1 <= s1 && f0 > s0) s.n = (s.n ?? 0) + 1;
    },
  };
  return {
    root,
    simulate,
    brokerConfig,
    timeLabel,
    checkpoint,
    plainRenderer,
    strategy,
    noop,
    reads,
  };
}

const builds = [await build(path.resolve(import.meta.dirname, "..")), await build(other)];
const { loadData } = await import("../dist/runner/load-data.js");
const tmp = MINUTE_DIR;
const csv = minuteCsv();
const { data } = loadData({ data: [{ file: csv }] } as Parameters<typeof loadData>[0]);
const dir = fs.mkdtempSync(path.join(tmp, "sim-ab-"));
const devNull = fs.createWriteStream("/dev/null");

const gcMs = gcClock();

async function once(b: (typeof builds)[number], kind: Kind) {
  const intraday = true;
  const label = (i: number) => b.timeLabel(data.times[i] ?? 0, intraday);
  const checkpoint =
    kind === "run"
      ? new b.checkpoint.Checkpointer({
          dir,
          runId: "bench",
          every: 1000,
          minIntervalMs: 1000,
          label,
          memory: new b.checkpoint.MemoryTally(),
          usage: () => null,
          transcript: null,
          expected: null,
        })
      : null;
  const gc0 = gcMs();
  const cpu0 = process.cpuUsage();
  const out = await b.simulate({
    data,
    broker: b.brokerConfig(MINUTE_BROKER),
    strategy: kind === "noop" ? b.noop : kind === "reads" ? b.reads : b.strategy,
    params: MINUTE_PARAMS,
    records: kind === "records" || kind === "run",
    ...(kind === "run" ? { onEvent: b.plainRenderer(devNull), checkpoint } : {}),
  });
  const cpu = process.cpuUsage(cpu0);
  await new Promise((resolve) => setImmediate(resolve));
  return {
    ms: out.simulateMs as number,
    cpu: (cpu.user + cpu.system) / 1000,
    gc: gcMs() - gc0,
    orders: (out.orders as unknown[]).length,
  };
}

const rows = new Map<string, { ms: number[]; cpu: number[]; gc: number[] }>();
for (let r = 0; r < rounds; r++) {
  for (const kind of kinds) {
    // Alternate which build goes first.
    const order = r % 2 === 0 ? builds : [...builds].reverse();
    for (const b of order) {
      const x = await once(b, kind);
      const key = `${kind} ${b === builds[0] ? "this " : "other"}`;
      const row = rows.get(key) ?? { ms: [], cpu: [], gc: [] };
      row.ms.push(x.ms);
      row.cpu.push(x.cpu);
      row.gc.push(x.gc);
      rows.set(key, row);
    }
  }
}
const stat = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `min ${s[0]?.toFixed(0)} med ${s[Math.floor(s.length / 2)]?.toFixed(0)}`;
};
for (const [key, row] of [...rows].sort()) {
  console.log(
    `${key}: simulateMs ${stat(row.ms)}, CPU ${stat(row.cpu)}, GC ${stat(row.gc)} (${row.ms.length} runs)`,
  );
}
fs.rmSync(dir, { recursive: true, force: true });
devNull.end();
