// What orders.jsonl and decisions.jsonl cost the main thread in the minute workload, in one
// process: `node --import tsx bench/records-bench.ts [rounds]`. Simulates the workload once with
// records (as a run does), then reads every line of both logs `rounds` times (as writeLines does at
// the end of a run) and writes them into /dev/null through writeLines, printing CPU milliseconds.
// AGENTICBT_ROOT=<checkout> measures another checkout's build (a before/after comparison).
import fs from "node:fs";
import path from "node:path";
import { MINUTE_BROKER, MINUTE_DIR, MINUTE_PARAMS, minuteCsv } from "./generate-series.js";

const ROOT = process.env.AGENTICBT_ROOT ?? path.resolve(import.meta.dirname, "..");
const dist = (m: string) => import(path.join(ROOT, "dist", m));
const { brokerConfig } = await dist("engine/broker-config.js");
const { loadData } = await dist("runner/load-data.js");
const { simulate } = await dist("runner/simulate.js");
const { loadStrategy } = await dist("runner/load-strategy.js");
const { writeLines } = await dist("rundir/write-outputs.js");

const rounds = Number(process.argv[2] ?? 5);
const tmp = MINUTE_DIR;
const csv = minuteCsv();
const { data } = loadData({ data: [{ file: csv }] });

interface Log extends Iterable<string> {
  length: number;
  line(k: number, keep?: boolean): string;
}

const cpuMs = (f: () => void) => {
  const c0 = process.cpuUsage();
  f();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
};

const out = fs.mkdtempSync(path.join(tmp, "records-bench-"));
const rows: string[] = [];
for (let r = 0; r < rounds; r++) {
  // A fresh simulation each round: a read keeps no line, but V8's caches should start cold too.
  const sim = await simulate({
    data,
    broker: brokerConfig(MINUTE_BROKER),
    strategy: await loadStrategy(path.join(ROOT, "strategies", "sma-crossover.ts")),
    params: MINUTE_PARAMS,
    records: true,
  });
  const logs = [sim.orderLog as Log, sim.decisionLog as Log];
  let bytes = 0;
  const read = cpuMs(() => {
    for (const log of logs) for (let k = 0; k < log.length; k++) bytes += log.line(k).length;
  });
  const write = cpuMs(() => {
    writeLines(path.join(out, "orders.jsonl"), logs[0]);
    writeLines(path.join(out, "decisions.jsonl"), logs[1]);
  });
  rows.push(
    `read ${read.toFixed(0)} ms, writeLines ${write.toFixed(0)} ms (${logs[0]?.length} + ${logs[1]?.length} lines, ${(bytes / 2 ** 20).toFixed(1)} MB)`,
  );
  console.log(rows[rows.length - 1]);
}
fs.rmSync(out, { recursive: true, force: true });
