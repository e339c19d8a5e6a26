// orders.jsonl and decisions.jsonl lines of the minute workload, made by this checkout's builders
// and by another's (`AGENTICBT_OTHER=/work/main`, default /work/main) from the same values, in one
// process: `node --import tsx bench/records-ab.ts [rounds]`. Checks every line is the same and
// prints each builder's CPU milliseconds to make all lines, then to hash them as the checkpoint
// does (64 KiB pieces: the lines flattened, as writing them does too).
import { createHash } from "node:crypto";
import path from "node:path";
import { gcClock } from "./gc-time.js";
import { MINUTE_BROKER, MINUTE_PARAMS, minuteCsv } from "./generate-series.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const OTHER = process.env.AGENTICBT_OTHER ?? "/work/main";
const dist = (root: string, m: string) => import(path.join(root, "dist", m));
const { brokerConfig } = await dist(ROOT, "engine/broker-config.js");
const { loadData } = await dist(ROOT, "runner/load-data.js");
const { simulate } = await dist(ROOT, "runner/simulate.js");
const { loadStrategy } = await dist(ROOT, "runner/load-strategy.js");
const mine = await dist(ROOT, "runner/order-records.js");
const other = await dist(OTHER, "runner/order-records.js");
// A line kept (by a checkpoint's digest) is kept flat, as RecordLog keeps it.
const { flat } = await dist(ROOT, "util/json-text.js");

type Builder = (v: readonly unknown[], at: number, label: (i: number) => string) => unknown;
const rounds = Number(process.argv[2] ?? 5);
const csv = minuteCsv();
const { data } = loadData({ data: [{ file: csv }] });
const sim = await simulate({
  data,
  broker: brokerConfig(MINUTE_BROKER),
  strategy: await loadStrategy(path.join(ROOT, "strategies", "sma-crossover.ts")),
  params: MINUTE_PARAMS,
  records: true,
});
const label = sim.label as (i: number) => string;
interface Kept {
  values: unknown[];
  starts: number[];
}
/** Each record's kind and where its values start, from a log's own arrays. */
function records(log: unknown, kindOf: (v: unknown[], at: number) => string) {
  const { values, starts } = log as Kept;
  return { values, list: starts.map((at) => ({ at: at + 1, kind: kindOf(values, at + 1) })) };
}
const orders = records(sim.orderLog, (v, at) => (typeof v[at] === "string" ? "event" : "fill"));
const decisions = records(sim.decisionLog, () => "decision");
const builders = (m: Record<string, Builder>) => ({
  event: m.orderEventAt as Builder,
  fill: m.fillAt as Builder,
  decision: m.decisionAt as Builder,
});
const sides = { mine: builders(mine), other: builders(other) };

function lines(who: "mine" | "other", each: (line: string) => void): void {
  const b = sides[who];
  for (const { values, list } of [orders, decisions]) {
    for (const r of list) {
      const built = b[r.kind as "event"](values, r.at, label);
      each(typeof built === "string" ? built : JSON.stringify(built));
    }
  }
}

// Every line the same, first.
const all: string[] = [];
lines("other", (l) => all.push(l));
let k = 0;
let same = 0;
lines("mine", (l) => {
  if (l === all[k++]) same++;
});
console.log(`${same} of ${all.length} lines identical`);
all.length = 0;

const gcMs = gcClock();
const cpu = (f: () => void) => {
  const c0 = process.cpuUsage();
  f();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
};
/** GC entries arrive on a later turn of the event loop. */
const gcSince = async (g0: number) => {
  await new Promise((resolve) => setImmediate(resolve));
  return gcMs() - g0;
};
const ms: Record<string, number[]> = {};
const note = (name: string, t: number) => {
  ms[name] ??= [];
  ms[name].push(t);
};
for (let r = 0; r < rounds; r++) {
  for (const who of ["other", "mine"] as const) {
    let n = 0;
    note(
      `${who} make`,
      cpu(() => lines(who, (l) => (n += l.length))),
    );
    const hash = createHash("sha256");
    let piece = "";
    const g0 = gcMs();
    note(
      `${who} make+hash`,
      cpu(() =>
        lines(who, (l) => {
          piece += `${l}\n`;
          if (piece.length >= 1 << 16) {
            hash.update(piece);
            piece = "";
          }
        }),
      ),
    );
    note(`${who} make+hash GC`, await gcSince(g0));
  }
}
// The heap of every line kept (as a checkpoint's digest keeps them), with --expose-gc.
const gc = (globalThis as { gc?: () => void }).gc;
if (gc) {
  for (const who of ["other", "mine"] as const) {
    gc();
    const h0 = process.memoryUsage().heapUsed;
    const kept: string[] = [];
    lines(who, (l) => kept.push(flat(l)));
    gc();
    const mb = (process.memoryUsage().heapUsed - h0) / 2 ** 20;
    console.log(`${who}: ${kept.length} lines kept hold ${mb.toFixed(1)} MB of heap`);
  }
}
for (const [name, t] of Object.entries(ms)) {
  const s = [...t].sort((a, b) => a - b);
  console.log(`${name}: ${s.map((x) => x.toFixed(0)).join(" ")} ms`);
}
