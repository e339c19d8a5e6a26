import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { randomWalk, writeCsv } from "../../bench/generate-series.js";
import type { SweepSummaryFile } from "../../src/sweep/sweep-dir.js";
import { cli, ROOT, tempDir } from "../helpers/cli.js";

// Pure noise through the real sweep: a random walk (bench/'s generator) and 100 strategies that go
// long, short or flat at random, each seeded by its own `draw` parameter. None has an edge, so the
// best of them is luck: the search statistics must say so (PBO high, DSR low) although the best
// looks good on its own (its PSR against 0).

const STRATEGY = path.join(ROOT, "test", "fixtures", "strategies", "random-entries.ts");
const work = tempDir("agenticbt-noise-sweep-");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

function noiseSweep(market: number): SweepSummaryFile {
  const csv = path.join(work, `walk-${market}.csv`);
  writeCsv(csv, randomWalk(2000, market));
  const r = cli(
    [
      "sweep",
      STRATEGY,
      "--data",
      csv,
      "--allow-short",
      "--grid",
      "draw=1:100:1",
      "--runs-dir",
      path.join(work, `m${market}`, "runs"),
      "--json",
    ],
    work,
  );
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as SweepSummaryFile;
}

describe("a sweep of pure-noise strategies", () => {
  it("has a high PBO and a low DSR on each of three random walks", () => {
    const rows = [1, 2, 3].map((market) => {
      const s = noiseSweep(market);
      const st = s.statistics;
      expect(st.trials).toBe(100);
      expect(st.sharpeTrials).toBe(100);
      expect(st.pboCombinations).toBe(100);
      return {
        market,
        best: s.best?.settings.draw,
        sharpe: s.best?.value,
        psr: st.psr.value as number,
        dsr: st.dsr.value as number,
        pbo: st.pbo.value as number,
        loss: st.probabilityOfLoss.value as number,
      };
    });
    console.log("noise sweeps (100 random-entry strategies, 2000 bars each):");
    console.table(
      rows.map((r) => ({
        ...r,
        sharpe: r.sharpe?.toFixed(3),
        psr: r.psr.toFixed(3),
        dsr: r.dsr.toFixed(3),
        pbo: r.pbo.toFixed(3),
        loss: r.loss.toFixed(3),
      })),
    );
    for (const r of rows) {
      // A coin toss out of sample: PBO well above the few percent a real edge gives.
      expect(r.pbo).toBeGreaterThan(0.2);
      expect(r.pbo).toBeLessThanOrEqual(1);
      // Not significant once the 100 trials are accounted for.
      expect(r.dsr).toBeLessThan(0.95);
      expect(r.dsr).toBeGreaterThanOrEqual(0);
      expect(r.psr).toBeGreaterThan(r.dsr);
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(rows.map((r) => r.pbo))).toBeGreaterThan(0.3);
    expect(mean(rows.map((r) => r.dsr))).toBeLessThan(0.8);
  }, 180_000);
});
