import { brokerConfig } from "../dist/engine/broker-config.js";
import { loadData } from "../dist/runner/load-data.js";
import { simulate } from "../dist/runner/simulate.js";
import { loadStrategy } from "../dist/runner/load-strategy.js";
import { computeBenchmarkMetrics, computeMetrics } from "../dist/metrics/compute-metrics.js";
import { curveSeries } from "../dist/report/html/report-model.js";
const { data } = loadData({ data: [{ file: "/tmp/agenticbt-minute-check/MINUTE.csv" }] } as any);
const broker = brokerConfig({ commissionRate: 0.001, allowShort: true });
const sma = await loadStrategy("/work/main/strategies/sma-crossover.ts");
const s = await simulate({ data, broker, strategy: sma as any, params: { fast: 10, slow: 30, longShort: true }, records: false });
for (let r = 0; r < 5; r++) {
  let t = performance.now();
  computeMetrics({ times: s.times, equity: s.equity, initialCash: 10000, trades: s.trades, benchmark: s.benchmark, exposedBars: s.exposedBars, commissions: s.commissions, slippage: s.slippage });
  const a = performance.now() - t; t = performance.now();
  computeBenchmarkMetrics(s.times, s.benchmark);
  const b = performance.now() - t; t = performance.now();
  curveSeries({ times: s.times, equity: s.equity, benchmark: s.benchmark });
  console.log(`metrics ${a.toFixed(0)} bench ${b.toFixed(0)} curve ${(performance.now() - t).toFixed(0)}`);
}
