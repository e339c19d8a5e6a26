// Memory systems benchmark: the memory overhead of one decision for each registered system, and
// the layered day-end maintenance with 10,000 memories. Run: npx tsx bench/memory-bench.ts
//
// A decision's memory work, as the LLM agent does it, timed on the system object in a real run
// directory (temp dir): the stable section (files: the playbook), the volatile sections (files:
// the position note of the held symbol; layered: the best of each layer), one write through the
// system's own tool (files memory_log, layered memory_store), one keyword recall, and the
// day-end moment. A year of daily decisions (252), so the state grows as in a run.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fse from "fs-extra";
import { resolveLayeredParams } from "../src/memory/layered/layered-config.js";
import { layerForImportance } from "../src/memory/layered/layered-math.js";
import { LayeredMemory } from "../src/memory/layered/layered-system.js";
import { loadMemorySystem, memorySystemNames } from "../src/memory/memory-registry.js";
import type { MemorySystem } from "../src/memory/memory-system.js";
import { MemoryWorkspace } from "../src/memory/workspace.js";
import { RunRecall } from "../src/rundir/run-recall.js";
import { memoryPort } from "../src/runner/memory-port.js";
import { DEFAULT_RECALL_OPTIONS } from "../src/runner/run-config.js";
import { prng } from "./generate-series.js";

const DAY = 86_400_000;
const START = Date.UTC(2023, 0, 2);
const DECISIONS = 252;
const MEMORIES = 10_000;
const MAINTENANCE_RUNS = 50;
const GOALS = { decisionP50Ms: 5, maintenanceP50Ms: 5 };

const WORDS =
  "breakout pullback earnings gap stop loss trend volume rsi oversold overbought support resistance sector rotation guidance drawdown 止损 仓位 突破".split(
    " ",
  );
const rand = prng(7);
const text = (n: number) =>
  Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(" ");

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
};
const r3 = (x: number) => Math.round(x * 1000) / 1000;
/** CPU time of this process since `from` (user + system), in ms: on a shared machine it shows
 * the work itself, where wall time also counts the waits for a core. */
const cpuMs = (from: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
};

async function systemIn(
  name: string,
  dir: string,
): Promise<{ system: MemorySystem; close: () => void }> {
  const workspace = new MemoryWorkspace({ dir, runId: "bench" });
  workspace.init("# Playbook: bench\n\nBuy strength, cut losers.\n");
  const recall = new RunRecall(dir, DEFAULT_RECALL_OPTIONS, null, {}, []);
  const files = memoryPort(workspace, recall);
  const factory = await loadMemorySystem(name);
  const config = factory.resolveConfig ? factory.resolveConfig(undefined) : null;
  const system = factory.create({
    dir,
    runId: "bench",
    config,
    barTimes: [],
    replayOf: null,
    files,
    fileStats: () => ({ ...workspace.stats() }),
  });
  files.note("position_SPY", "Long 10 SPY @ 400, stop 390, target 420.", START);
  return {
    system,
    close: () => {
      system.finish();
      recall.close();
    },
  };
}

async function decisionOverhead(name: string) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `agenticbt-membench-${name}-`));
  // A run directory inside a runs directory, as in a run: persistent keeps its cross-run store
  // beside the runs (root/memory/default).
  const dir = path.join(root, "runs", "bench");
  fs.mkdirSync(dir, { recursive: true });
  const { system, close } = await systemIn(name, dir);
  const write = system.tools.find((t) => t.name === "memory_store" || t.name === "memory_log");
  const recall = system.tools.find((t) => t.name === "memory_recall");
  // The control (`none`) has no memory tools: it does no memory work to measure.
  if (!write || !recall) {
    close();
    fs.rmSync(root, { recursive: true, force: true });
    return null;
  }
  const all: number[] = [];
  const cpu: number[] = [];
  const reads: number[] = [];
  const writes: number[] = [];
  try {
    for (let d = 0; d < DECISIONS; d++) {
      const time = START + d * DAY;
      const at = { time, index: d, label: new Date(time).toISOString().slice(0, 10) };
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      system.stableSection();
      system.volatileSections({ time, index: d, held: ["SPY"] });
      // persistent: auto-recall, with the decision message as the query.
      system.decisionPrefix?.(`Bar ${d + 1}: SPY ${text(40)}`, { time, index: d, held: ["SPY"] });
      await recall.run(recall.parameters.parse({ query: text(3) }), at);
      const t1 = performance.now();
      await write.run(write.parameters.parse({ content: text(20) }), at);
      system.onMoment({ kind: "day_end", time, index: d, day: at.label, equity: 10_000 });
      const t2 = performance.now();
      reads.push(t1 - t0);
      writes.push(t2 - t1);
      all.push(t2 - t0);
      cpu.push(cpuMs(c0));
    }
  } finally {
    close();
    fs.rmSync(root, { recursive: true, force: true });
  }
  return {
    system: name,
    decisions: DECISIONS,
    p50Ms: r3(pct(all, 50)),
    p95Ms: r3(pct(all, 95)),
    cpuP50Ms: r3(pct(cpu, 50)),
    // Context sections and one recall; then one write and the day end.
    readP50Ms: r3(pct(reads, 50)),
    writeP50Ms: r3(pct(writes, 50)),
  };
}

/**
 * One day end (decay, flow, clean-up, and its log line) over a store of exactly 10,000 memories,
 * measured 50 times on fresh stores: importances 20-100 each in the layer its importance names
 * (a quarter reflections), ages in their layer 0-200 days, all last maintained the day before.
 * Timed: `onMoment(day_end)`.
 */
function layeredMaintenance() {
  const params = resolveLayeredParams(undefined);
  const ms: number[] = [];
  const cpu: number[] = [];
  let moves = 0;
  const day = START + 300 * DAY;
  for (let run = 0; run < MAINTENANCE_RUNS; run++) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-membench-maint-"));
    const system = new LayeredMemory(dir, params);
    for (let i = 0; i < MEMORIES; i++) {
      const importance = 20 + rand() * 80;
      const layer = i % 4 === 3 ? "reflection" : layerForImportance(importance, params);
      system.state.store(day - DAY, 0, layer, importance, text(12));
    }
    for (const item of system.state.items) {
      item.ageDays = Math.floor(rand() * (item.layer === "short" ? 8 : 200));
    }
    // A store that old has been through its day ends: de-duplication and compression compare
    // only what is new since the last one. One new short memory arrives today.
    system.state.settle();
    system.state.store(day, 300, "short", 50, text(12));
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    system.onMoment({ kind: "day_end", time: day, index: 300, day: "", equity: 10_000 });
    ms.push(performance.now() - t0);
    cpu.push(cpuMs(c0));
    const stats = system.stats();
    moves += (stats.promotions ?? 0) + (stats.demotions ?? 0) + (stats.removed ?? 0);
    system.finish();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return {
    memories: MEMORIES,
    runs: MAINTENANCE_RUNS,
    movesPerDayEnd: Math.round(moves / MAINTENANCE_RUNS),
    p50Ms: r3(pct(ms, 50)),
    p95Ms: r3(pct(ms, 95)),
    cpuP50Ms: r3(pct(cpu, 50)),
  };
}

const perDecision = [];
for (const name of memorySystemNames()) {
  const d = await decisionOverhead(name);
  if (d !== null) perDecision.push(d);
}
const maintenance = layeredMaintenance();
const ok =
  perDecision.every((d) => d.p50Ms <= GOALS.decisionP50Ms) &&
  maintenance.p50Ms <= GOALS.maintenanceP50Ms;
const result = { bench: "memory", goals: GOALS, perDecision, layeredMaintenance: maintenance, ok };
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
const out = path.join(path.resolve(import.meta.dirname, ".."), "bench", "results", "memory.json");
fse.outputJsonSync(out, result, { spaces: 2 });
process.stdout.write(`wrote bench/results/memory.json\n`);
