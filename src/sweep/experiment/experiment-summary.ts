import { BOOTSTRAP_RESAMPLES } from "../../metrics/experiment/bootstrap.js";
import { type MetricSummary, summarizeCell, windowMeans } from "../../metrics/experiment/cell.js";
import { type CellComparison, compareCells } from "../../metrics/experiment/compare.js";
import {
  type ExperimentDeflatedSharpe,
  experimentDeflatedSharpe,
} from "../../metrics/experiment/deflated.js";
import {
  EXPERIMENT_METRIC_NAMES,
  type ExperimentMetric,
  type ExperimentRun,
} from "../../metrics/experiment/metrics.js";
import { DEFAULT_SEED } from "../../metrics/experiment/prng.js";
import { noFigure } from "../../metrics/figure.js";
import type { ExperimentConfig, ExperimentResultLine } from "./experiment-dir.js";
import { baselineCells, cellLabel, windowLabel } from "./experiment-plan.js";

/** How an experiment ended (summary.json's `status`). */
export type ExperimentStatus = "completed" | "interrupted";

/** summary.json of an experiment. */
export interface ExperimentSummary {
  kind: "experiment";
  id: string;
  name: string;
  status: ExperimentStatus;
  total: number;
  /** Runs finished (any status), and of them those that did not complete. */
  done: number;
  failed: number;
  /** The bootstrap's resamples and seed, recorded so every interval can be recomputed. */
  bootstrap: { resamples: number; seed: number };
  cells: {
    index: number;
    label: string;
    settings: Record<string, string>;
    /** Completed runs: the n of the cell's statistics. */
    runs: number;
    metrics: Record<ExperimentMetric, MetricSummary>;
  }[];
  /** Each cell against its baseline (same settings, memory none), per metric; the p-values are
   * adjusted across the cells of one metric. Empty without a none cell. */
  comparisons: Partial<Record<ExperimentMetric, CellComparison[]>>;
  /** The return comparisons in words, one per cell with a baseline. */
  sentences: string[];
  /** `--budget-usd` and what the runs were billed; `stopped`: runs were left unstarted for it
   * (with the reason). */
  budget: { usd: number | null; spentUsd: number | null; stopped: string | null };
  /** Buy-and-hold on each window (from the runs' own benchmark: it costs nothing). */
  buyAndHold: { window: string; returnPct: number | null }[];
  /** `--baseline`'s code strategy (one run per window) and each LLM cell against it, the cell's
   * repeats averaged per window, on the trading metrics; null without --baseline. */
  codeBaseline: {
    label: string;
    comparisons: Partial<Record<ExperimentMetric, CellComparison[]>>;
    sentences: string[];
  } | null;
  /** The Deflated Sharpe Ratio of the best cell, the cells being the trials; `label` names it. */
  deflatedSharpe: ExperimentDeflatedSharpe & { label: string | null };
  finishedAt: string;
}

/** A completed run's per-bar returns (from its equity curve), or null when it has none. */
export type RunReturns = (line: ExperimentResultLine) => ArrayLike<number> | null;

/** The DSR of the best cell from each cell's completed runs' returns, in (window, repeat) order. */
function bestCellDsr(
  results: readonly ExperimentResultLine[],
  labels: readonly string[],
  trials: readonly number[],
  returnsOf: RunReturns | null,
): ExperimentSummary["deflatedSharpe"] {
  const perCell = trials.map((i) =>
    results
      .filter((r) => r.cell === i && r.status === "completed")
      .sort((a, b) => a.window - b.window || a.repeat - b.repeat)
      .flatMap((r) => {
        const x = returnsOf?.(r) ?? null;
        return x === null ? [] : [x];
      }),
  );
  const d = experimentDeflatedSharpe(perCell);
  if (returnsOf === null) {
    const why = noFigure("the runs' equity curves were not read");
    return { ...d, label: null, expectedMaxSharpe: why, bestSharpePerBar: why, psr: why, dsr: why };
  }
  const cell = d.cell === null ? null : (trials[d.cell] ?? null);
  return { ...d, cell, label: cell === null ? null : (labels[cell] ?? null) };
}

/** The metrics a code baseline is compared on: it makes no call, so tokens and $ say nothing. */
const TRADING_METRICS: readonly ExperimentMetric[] = [
  "returnPct",
  "sharpe",
  "maxDrawdownPct",
  "trades",
  "turnover",
];

/** Each LLM cell against the code baseline, paired on the window (repeats averaged). */
function againstCode(
  config: ExperimentConfig,
  labels: readonly string[],
  runs: readonly ExperimentRun[][],
): ExperimentSummary["codeBaseline"] {
  const code = config.cells.findIndex((c) => c.code === true);
  if (code < 0) return null;
  const label = labels[code] ?? "";
  const per = config.repeats > 1 ? ` (mean of ${config.repeats} repeats)` : "";
  const entries = config.cells.flatMap((c, i) =>
    c.code === true
      ? []
      : [
          {
            cell: `${labels[i] ?? ""}${per}`,
            baseline: label,
            cellRuns: windowMeans(runs[i] ?? []),
            baselineRuns: runs[code] ?? [],
          },
        ],
  );
  const comparisons: Partial<Record<ExperimentMetric, CellComparison[]>> = {};
  for (const metric of TRADING_METRICS) comparisons[metric] = compareCells(entries, metric);
  return { label, comparisons, sentences: (comparisons.returnPct ?? []).map((c) => c.sentence) };
}

/** The completed runs of a cell as the statistics take them. */
function cellRuns(
  results: readonly ExperimentResultLine[],
  config: ExperimentConfig,
  cell: number,
): ExperimentRun[] {
  return results
    .filter((r) => r.cell === cell && r.status === "completed")
    .map((r) => {
      const w = config.windows[r.window];
      return {
        window: w ? windowLabel(w) : String(r.window),
        repeat: r.repeat,
        metrics: r.metrics,
      };
    });
}

/** The statistics of an experiment from its results (the last line of a key wins). */
export function summarizeExperiment(
  config: ExperimentConfig,
  lines: readonly ExperimentResultLine[],
  status: ExperimentStatus,
  finishedAt: string,
  budgetStop: string | null = null,
  returnsOf: RunReturns | null = null,
): ExperimentSummary {
  const byKey = new Map<string, ExperimentResultLine>();
  for (const l of lines) byKey.set(l.key, l);
  const results = [...byKey.values()];
  const labels = config.cells.map((c) => cellLabel(c.settings));
  const runs = config.cells.map((_, i) => cellRuns(results, config, i));
  const baselines = baselineCells(config.cells.map((c) => c.settings));
  const entries = baselines.flatMap((b, i) =>
    b === null
      ? []
      : [
          {
            cell: labels[i] ?? "",
            baseline: labels[b] ?? "",
            cellRuns: runs[i] ?? [],
            baselineRuns: runs[b] ?? [],
          },
        ],
  );
  const comparisons: Partial<Record<ExperimentMetric, CellComparison[]>> = {};
  if (entries.length > 0)
    for (const metric of EXPERIMENT_METRIC_NAMES)
      comparisons[metric] = compareCells(entries, metric);
  const buyAndHold = config.windows.map((w, k) => {
    const r = results.find(
      (x) => x.window === k && x.status === "completed" && x.buyHoldReturnPct !== null,
    );
    return { window: windowLabel(w), returnPct: r?.buyHoldReturnPct ?? null };
  });
  return {
    kind: "experiment",
    id: config.id,
    name: config.name,
    status,
    total: config.total,
    done: results.length,
    failed: results.filter((r) => r.status !== "completed").length,
    bootstrap: { resamples: BOOTSTRAP_RESAMPLES, seed: DEFAULT_SEED },
    cells: config.cells.map((c, i) => ({
      index: i,
      label: labels[i] ?? "",
      settings: c.settings,
      runs: runs[i]?.length ?? 0,
      metrics: summarizeCell(runs[i] ?? []),
    })),
    comparisons,
    sentences: (comparisons.returnPct ?? []).map((c) => c.sentence),
    budget: { usd: config.budgetUsd ?? null, spentUsd: spentUsd(results), stopped: budgetStop },
    buyAndHold,
    codeBaseline: againstCode(config, labels, runs),
    deflatedSharpe: bestCellDsr(
      results,
      labels,
      config.cells.flatMap((c, i) => (c.code === true ? [] : [i])),
      returnsOf,
    ),
    finishedAt,
  };
}

/** The best cell's DSR in words: "Deflated Sharpe Ratio 0.524 for memory=layered, the best of 3 cells …". */
export function deflatedSharpeLine(d: ExperimentSummary["deflatedSharpe"]): string {
  const f = (x: number | null) => (x === null ? "n/a" : x.toFixed(3));
  if (d.dsr.value === null) return `Deflated Sharpe Ratio: n/a (${d.dsr.reason})`;
  return (
    `Deflated Sharpe Ratio ${f(d.dsr.value)} for ${d.label}, the best of ${d.trials} cells by per-bar Sharpe ` +
    `(${f(d.bestSharpePerBar.value)} over ${d.observations} per-bar returns; the best of ${d.trials} skill-less cells ` +
    `would show ${f(d.expectedMaxSharpe.value)}; PSR against 0 ${f(d.psr.value)})`
  );
}

/** What the experiment's runs were billed: null when a run's price is unknown. */
export function spentUsd(results: readonly ExperimentResultLine[]): number | null {
  let sum = 0;
  for (const r of results) {
    if (r.calls.network === 0) continue;
    if (r.metrics.costUsd === null) return null;
    sum += r.metrics.costUsd;
  }
  return sum;
}
