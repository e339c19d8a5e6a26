// The sweep's speed: the GOOG grid (sma-crossover, longShort, --allow-short, --commission 0.002,
// fast 5..50 step 5, slow 10..200 step 10, fast < slow: 175 combinations) in combinations/s, and
// 20 combinations over 1,000,000 minute bars (time and peak RSS). `npx tsx bench/sweep-bench.ts
// [jobs]`. Not part of `npm run bench` yet.
import { checkBroker } from "../src/runner/library-settings.js";
import { loadData } from "../src/runner/load-data.js";
import { loadStrategy } from "../src/runner/load-strategy.js";
import { executeSweep } from "../src/sweep/execute.js";
import { jobsOf, prepareSweep } from "../src/sweep/plan.js";
import { MINUTE_BROKER, minuteCsv } from "./generate-series.js";

const STRATEGY = "strategies/sma-crossover.ts";

async function sweepOnce(
  file: string,
  broker: Record<string, unknown>,
  grid: { name: string; values: (number | string)[] }[],
  constraint: string | null,
  jobs: number,
) {
  const t0 = performance.now();
  const strategy = await loadStrategy(STRATEGY);
  const prepared = prepareSweep({
    // The loaded columns are copied into shared memory once, then dropped.
    ...loadData({ data: [{ file }], from: null, to: null, strict: false, tz: null }),
    strategy,
    strategyPath: STRATEGY,
    run: { broker: checkBroker(broker), params: { longShort: "true" }, hookTimeoutMs: undefined },
    search: {
      grid,
      constraint,
      objective: { metric: "sharpe", direction: "maximize" },
      method: "grid",
      maxTries: null,
      seed: 1,
    },
  });
  const t1 = performance.now();
  let best = { value: -Infinity, settings: {} as unknown };
  let n = 0;
  await executeSweep(prepared, {
    jobs,
    strategyPath: STRATEGY,
    onRun: ({ outcome }) => {
      n++;
      const v = outcome.metrics?.sharpe ?? null;
      if (v !== null && v > best.value) best = { value: v, settings: outcome.settings };
    },
  });
  const t2 = performance.now();
  return { n, loadMs: t1 - t0, sweepMs: t2 - t1, totalMs: t2 - t0, best };
}

const jobs = jobsOf(process.argv[2] ? Number(process.argv[2]) : null);
const range = (a: number, b: number, s: number) => {
  const out: number[] = [];
  for (let v = a; v <= b; v += s) out.push(v);
  return out;
};
const goog = [
  { name: "fast", values: range(5, 50, 5) },
  { name: "slow", values: range(10, 200, 10) },
];
for (let k = 0; k < (process.env.SKIP_GOOG ? 0 : 3); k++) {
  const r = await sweepOnce(
    "data/GOOG.csv",
    { commissionRate: 0.002, allowShort: true },
    goog,
    "fast < slow",
    jobs,
  );
  console.log(
    `GOOG grid, ${jobs} jobs: ${r.n} combinations in ${r.sweepMs.toFixed(0)} ms = ${((r.n / r.sweepMs) * 1000).toFixed(0)} combinations/s (load ${r.loadMs.toFixed(0)} ms; best ${JSON.stringify(r.best.settings)} sharpe ${r.best.value.toFixed(4)})`,
  );
}
const csv = minuteCsv();
let peak = 0;
const timer = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 20);
const m = await sweepOnce(
  csv,
  { ...MINUTE_BROKER },
  [
    { name: "fast", values: [5, 10, 15, 20] },
    { name: "slow", values: [30, 40, 50, 60, 70] },
  ],
  null,
  jobs,
);
clearInterval(timer);
peak = Math.max(peak, process.memoryUsage().rss);
console.log(
  `1,000,000 minute bars x ${m.n} combinations, ${jobs} jobs: ${(m.totalMs / 1000).toFixed(2)} s in all (load ${(m.loadMs / 1000).toFixed(2)} s, sweep ${(m.sweepMs / 1000).toFixed(2)} s), peak RSS ${(peak / 2 ** 20).toFixed(0)} MB`,
);
