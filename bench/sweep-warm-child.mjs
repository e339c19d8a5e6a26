// The GOOG grid through the library's sweep() again and again in one process, as a notebook or a
// server would run it: `node bench/sweep-warm-child.mjs <sweeps>` prints one JSON line per
// sweep with its window (from the handle given before the first combination to the last result,
// as summary.json's `timings.sweepMs`), in wall and CPU time (every thread).
import path from "node:path";
import { sweep } from "../dist/index.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const sweeps = Number(process.argv[2] ?? 6);
for (let k = 0; k < sweeps; k++) {
  let t0 = 0;
  let c0 = process.cpuUsage();
  let t1 = 0;
  let c1 = c0;
  let n = 0;
  const out = await sweep({
    strategy: path.join(ROOT, "strategies", "sma-crossover.ts"),
    data: [path.join(ROOT, "data", "GOOG.csv")],
    broker: { allowShort: true, commissionRate: 0.002 },
    params: { longShort: true },
    grid: { fast: "5:50:5", slow: "10:200:10" },
    constraint: "fast < slow",
    maximize: "sharpe",
    onStart: () => {
      t0 = performance.now();
      c0 = process.cpuUsage();
    },
    onResult: () => {
      n++;
      t1 = performance.now();
      c1 = process.cpuUsage(c0);
    },
  });
  process.stdout.write(
    `${JSON.stringify({
      combinations: n,
      sweepMs: t1 - t0,
      sweepCpuMs: (c1.user + c1.system) / 1000,
      best: out.summary.best?.settings ?? null,
    })}\n`,
  );
}
