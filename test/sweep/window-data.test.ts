import path from "node:path";
import { expect, it } from "vitest";
import { timeLabel } from "../../src/engine/calendar.js";
import { backtest, sweep } from "../../src/index.js";
import { loadData } from "../../src/runner/load-data.js";
import { dataUpTo } from "../../src/sweep/window-data.js";
import smaCrossover from "../../strategies/sma-crossover.js";

const DATA = path.resolve(import.meta.dirname, "..", "..", "data");
const files = [{ file: path.join(DATA, "GOOG.csv") }, { file: path.join(DATA, "SPY_D.csv") }];

it("cuts loaded data at a bar as --to at that bar's date loads it", () => {
  const whole = loadData({ data: files, from: null, to: null, strict: false, tz: null }).data;
  const last = 1500;
  const to = timeLabel(whole.times[last] as number, false);
  const loaded = loadData({ data: files, from: null, to, strict: false, tz: null }).data;
  const cut = dataUpTo(whole, last);
  expect(cut.times).toEqual(loaded.times);
  expect(cut.barIndex).toEqual(loaded.barIndex);
  for (const [k, s] of cut.series.entries()) {
    const l = loaded.series[k] as (typeof cut.series)[number];
    expect(s.length).toBe(l.length);
    for (const c of ["time", "open", "high", "low", "close", "volume"] as const)
      expect(s[c]).toEqual(l[c]);
  }
  expect(cut.times.buffer).toBe(whole.times.buffer);
});

it("gives a sweep over the cut data the metrics of backtest() with --to", async () => {
  const whole = loadData({
    data: [files[0] as { file: string }],
    from: null,
    to: null,
    strict: false,
    tz: null,
  }).data;
  const last = 1200;
  const to = timeLabel(whole.times[last] as number, false);
  const out = await sweep({
    strategy: smaCrossover,
    data: dataUpTo(whole, last),
    grid: { fast: [10, 20] },
  });
  for (const r of out.results) {
    const b = await backtest({
      strategy: smaCrossover,
      data: [files[0]?.file as string],
      to,
      params: { fast: r.settings.fast as number },
    });
    expect(r.metrics).toEqual(b.metrics);
    expect(r.metrics?.bars).toBe(last + 1);
  }
});
