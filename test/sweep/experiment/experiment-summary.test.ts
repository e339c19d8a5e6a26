import { describe, expect, it } from "vitest";
import type {
  ExperimentConfig,
  ExperimentResultLine,
} from "../../../src/sweep/experiment/experiment-dir.js";
import {
  experimentCells,
  planRuns,
  windowLabel,
} from "../../../src/sweep/experiment/experiment-plan.js";
import { spentUsd, summarizeExperiment } from "../../../src/sweep/experiment/experiment-summary.js";

// summary.json from results.jsonl lines with known figures: each cell is paired with its none
// cell on (window, repeat), and significance comes with a real difference and goes without one.

const windows = [
  { from: "2012-01-01", to: "2012-06-30" },
  { from: "2012-07-01", to: "2012-12-31" },
  { from: "2013-01-01", to: "2013-06-30" },
];
const axes = [{ name: "memory", values: ["none", "files", "layered"] }];
const cells = experimentCells(axes);
const config = {
  kind: "experiment",
  id: "x",
  name: "x",
  createdAt: "",
  axes,
  cells: cells.map((settings) => ({ settings, run: {} })),
  windows,
  repeats: 2,
  seed: 1,
  jobs: 1,
  budgetUsd: null,
  replayOf: null,
  total: 18,
} as unknown as ExperimentConfig;

/** The none cell's return on a run: a different figure on every window and repeat. */
const base = (w: number, r: number) => 10 * w - 3 * r + ((w * r) % 4);

function lines(returnOf: (cell: number, w: number, r: number) => number): ExperimentResultLine[] {
  return planRuns(3, windows, 2, 1).map((p) => ({
    key: p.key,
    cell: p.cell,
    window: p.window,
    repeat: p.repeat,
    seed: p.seed,
    runId: `run-${p.key}`,
    status: "completed",
    error: null,
    metrics: {
      returnPct: returnOf(p.cell, p.window, p.repeat),
      sharpe: null,
      maxDrawdownPct: -5,
      trades: 4,
      turnover: null,
      tokens: 1000 + p.cell,
      costUsd: 0.01,
    },
    buyHoldReturnPct: 100 + p.window,
    calls: { network: 10, cache: 0, replay: 0 },
  }));
}

describe("summarizeExperiment", () => {
  // files is 2 points above none on every pair; layered is above on 3 pairs and below on 3.
  const noise = [0.5, -0.5, 0.25, -0.25, 1, -1];
  const results = lines((cell, w, r) =>
    cell === 0
      ? base(w, r)
      : cell === 1
        ? base(w, r) + 2
        : base(w, r) + (noise[w * 2 + r - 1] ?? 0),
  );
  const s = summarizeExperiment(config, results, "completed", "t");

  it("summarises each cell over its 6 runs", () => {
    expect(s.cells.map((c) => [c.label, c.runs])).toEqual([
      ["memory=none", 6],
      ["memory=files", 6],
      ["memory=layered", 6],
    ]);
    const noneReturns = [0, 1, 2].flatMap((w) => [1, 2].map((r) => base(w, r)));
    const mean = noneReturns.reduce((a, b) => a + b, 0) / 6;
    expect(s.cells[0]?.metrics.returnPct.mean.value).toBeCloseTo(mean, 12);
    expect(s.cells[0]?.metrics.sharpe.n).toBe(0);
    expect(s.cells[0]?.metrics.sharpe.missing).toBe(6);
  });

  it("finds the real difference significant and the noise not", () => {
    const [files, layered] = s.comparisons.returnPct ?? [];
    expect(files?.pairs).toBe(6);
    expect(files?.difference.mean.value).toBeCloseTo(2, 12);
    // Exact sign flip over 6 pairs all of one sign: 2 of 64 patterns are as extreme.
    expect(files?.test.p.value).toBeCloseTo(2 / 64, 12);
    expect(layered?.difference.mean.value).toBeCloseTo(0, 12);
    expect(layered?.test.p.value).toBe(1);
    // Benjamini–Hochberg over the two: files' p is the smaller, times 2 / 1.
    expect(files?.pAdjusted.value).toBeCloseTo((2 / 64) * 2, 12);
    expect(files?.significant).toBe(false);
    expect(layered?.significant).toBe(false);
    expect(s.sentences[0]).toMatch(/^memory=files beat memory=none on 6 of 6 pairs/);
    expect(s.sentences[1]).toContain("not significant");
  });

  it("is significant with more pairs of the same difference", () => {
    const more = { ...config, repeats: 4, total: 36 } as ExperimentConfig;
    const four = planRuns(3, windows, 4, 1).map((p) => ({
      ...(lines(() => 0)[0] as ExperimentResultLine),
      key: p.key,
      cell: p.cell,
      window: p.window,
      repeat: p.repeat,
      metrics: {
        ...(lines(() => 0)[0] as ExperimentResultLine).metrics,
        returnPct: base(p.window, p.repeat) + (p.cell === 1 ? 2 : 0),
      },
    }));
    const t = summarizeExperiment(more, four, "completed", "t");
    const files = t.comparisons.returnPct?.[0];
    expect(files?.pairs).toBe(12);
    expect(files?.test.p.value).toBeCloseTo(2 / 4096, 12);
    expect(files?.significant).toBe(true);
    expect(t.sentences[0]).toContain("significant at 5%");
  });

  it("leaves failed runs out, keeps the last line of a key, and reads buy-and-hold per window", () => {
    const withFailure = [
      ...results.slice(0, -1),
      { ...(results.at(-1) as ExperimentResultLine), status: "failed" },
    ];
    const t = summarizeExperiment(config, withFailure, "completed", "t");
    expect(t.failed).toBe(1);
    expect(t.cells[2]?.runs).toBe(5);
    expect(t.comparisons.returnPct?.[1]?.pairs).toBe(5);
    const again = summarizeExperiment(
      config,
      [...withFailure, results.at(-1) as ExperimentResultLine],
      "completed",
      "t",
    );
    expect(again.failed).toBe(0);
    expect(again.done).toBe(18);
    expect(s.buyAndHold).toEqual(
      windows.map((w, k) => ({ window: windowLabel(w), returnPct: 100 + k })),
    );
  });

  it("has no comparisons without a none cell, and sums the bill", () => {
    const filesOnly = {
      ...config,
      cells: experimentCells([{ name: "memory", values: ["files", "layered"] }]).map(
        (settings) => ({
          settings,
          run: {},
        }),
      ),
    } as unknown as ExperimentConfig;
    const t = summarizeExperiment(
      filesOnly,
      results.filter((l) => l.cell < 2),
      "completed",
      "t",
    );
    expect(t.comparisons).toEqual({});
    expect(t.sentences).toEqual([]);
    expect(spentUsd(results)).toBeCloseTo(0.18, 12);
    const unknown = [
      ...results,
      {
        ...(results[0] as ExperimentResultLine),
        metrics: { ...(results[0] as ExperimentResultLine).metrics, costUsd: null },
      },
    ];
    expect(spentUsd(unknown)).toBeNull();
  });
});

describe("the Deflated Sharpe Ratio of the best cell", () => {
  // Example 7 of docs/experiment-statistics.md, as results.jsonl lines: the cells none, files
  // and layered, one window × two repeats; each run's per-bar returns by its key.
  const two = { ...config, windows: windows.slice(0, 1), total: 6 } as ExperimentConfig;
  const returns: Record<string, number[]> = {
    "c0-w0-r1": [0.01, -0.01],
    "c0-w0-r2": [0.02, -0.02],
    "c1-w0-r1": [-0.01, 0.02],
    "c1-w0-r2": [-0.03, 0],
    "c2-w0-r1": [0.01, -0.02],
    "c2-w0-r2": [0.03, 0],
  };
  const ls = lines(() => 0).filter((l) => l.window === 0);

  it("deflates the best cell by the experiment's cells as trials", () => {
    const s = summarizeExperiment(two, ls, "completed", "t", null, (l) => returns[l.key] ?? null);
    expect(s.deflatedSharpe).toMatchObject({ label: "memory=layered", cell: 2, trials: 3 });
    expect(s.deflatedSharpe.observations).toBe(4);
    expect(s.deflatedSharpe.dsr.value).toBeCloseTo(0.52426631101443, 9);
  });

  it("leaves a failed run's returns out, and is null when no curve was read", () => {
    const failed = ls.map((l) => (l.key === "c2-w0-r2" ? { ...l, status: "failed" } : l));
    const s = summarizeExperiment(
      two,
      failed,
      "completed",
      "t",
      null,
      (l) => returns[l.key] ?? null,
    );
    // layered keeps (0.01, −0.02) alone, a per-bar Sharpe of −0.005 / √0.00045 < 0: none
    // (Sharpe 0) is the best now.
    expect(s.deflatedSharpe).toMatchObject({ label: "memory=none", cell: 0, trials: 3 });
    const none = summarizeExperiment(two, ls, "completed", "t");
    expect(none.deflatedSharpe.dsr).toEqual({
      value: null,
      reason: "the runs' equity curves were not read",
    });
  });
});

describe("a code baseline (--baseline)", () => {
  // none and files (3 windows × 2 repeats) and a code strategy run once on each window.
  const withCode = {
    ...config,
    cells: [
      ...config.cells.slice(0, 2),
      { settings: { baseline: "strategies/sma-crossover.ts" }, run: {}, code: true },
    ],
    total: 2 * 3 * 2 + 3,
  } as unknown as ExperimentConfig;
  const code = [1, -2, 0.5];
  // files' returns per window and repeat; none is base(w, r).
  const files = (w: number, r: number) => code[w]! + (r === 1 ? 3 : 1) - w;
  const all = lines((cell, w, r) => (cell === 0 ? base(w, r) : files(w, r)))
    .filter((l) => l.cell < 2)
    .concat(
      windows.map((_, w) => ({
        ...(lines(() => 0)[0] as ExperimentResultLine),
        key: `c2-w${w}-r1`,
        cell: 2,
        window: w,
        repeat: 1,
        metrics: {
          ...(lines(() => 0)[0] as ExperimentResultLine).metrics,
          returnPct: code[w]!,
          tokens: null,
          costUsd: null,
        },
        calls: { network: 0, cache: 0, replay: 0 },
      })),
    );
  const s = summarizeExperiment(withCode, all, "completed", "t");

  it("shows the code strategy as a cell of its own, over its one run per window", () => {
    const row = s.cells[2];
    expect(row?.label).toBe("baseline=strategies/sma-crossover.ts");
    expect(row?.runs).toBe(3);
    expect(row?.metrics.returnPct.mean.value).toBeCloseTo((1 - 2 + 0.5) / 3, 12);
    expect(row?.metrics.tokens).toMatchObject({ n: 0, missing: 3 });
  });

  it("pairs each LLM cell's window means with the code strategy's run on that window", () => {
    const [none, vsFiles] = s.codeBaseline?.comparisons.returnPct ?? [];
    expect(s.codeBaseline?.label).toBe("baseline=strategies/sma-crossover.ts");
    expect(vsFiles?.cell).toBe("memory=files (mean of 2 repeats)");
    expect(vsFiles?.baseline).toBe("baseline=strategies/sma-crossover.ts");
    // files − code per window: the mean of (3, 1) minus w, i.e. 2, 1, 0.
    expect(vsFiles?.pairs).toBe(3);
    expect(vsFiles?.difference.mean.value).toBeCloseTo(1, 12);
    expect([vsFiles?.higher, vsFiles?.equal]).toEqual([2, 1]);
    // Sign flip over the non-zero (2, 1) and a 0: |Σ| ≥ 3 in 2 × 2 of the 8 patterns.
    expect(vsFiles?.test.p.value).toBeCloseTo(4 / 8, 12);
    // none: the mean over its repeats of base(w, r) − code[w].
    const diffs = [0, 1, 2].map((w) => (base(w, 1) + base(w, 2)) / 2 - code[w]!);
    expect(none?.difference.mean.value).toBeCloseTo(diffs.reduce((a, b) => a + b, 0) / 3, 12);
    // BH across the two cells.
    expect(vsFiles?.comparisons).toBe(2);
    expect(s.codeBaseline?.sentences[1]).toMatch(
      /^memory=files \(mean of 2 repeats\) beat baseline=strategies\/sma-crossover\.ts on 2 of 3 windows, tied on 1;/,
    );
    // Tokens and $ mean nothing against a strategy that makes no call.
    expect(Object.keys(s.codeBaseline?.comparisons ?? {})).not.toContain("tokens");
  });

  it("leaves the code strategy out of the memory=none comparisons and of the DSR's trials", () => {
    expect(s.comparisons.returnPct?.map((c) => c.cell)).toEqual(["memory=files"]);
    const t = summarizeExperiment(withCode, all, "completed", "t", null, (l) =>
      l.cell === 2 ? [0.05, 0.06, 0.04, 0.05] : l.cell === 0 ? [0.01, -0.01] : [0.02, -0.01],
    );
    expect(t.deflatedSharpe.trials).toBe(2);
    expect(t.deflatedSharpe.label).toBe("memory=files");
  });

  it("has no code baseline without --baseline", () => {
    expect(
      summarizeExperiment(
        config,
        lines(() => 1),
        "completed",
        "t",
      ).codeBaseline,
    ).toBeNull();
  });
});
