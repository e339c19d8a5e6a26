import { isIntraday, timeLabel } from "../engine/calendar.js";
import { buyAndHoldEquity } from "../metrics/buy-and-hold.js";
import { computeCurveStats } from "../metrics/curve-stats.js";
import { type Figure, figure, noFigure } from "../metrics/figure.js";
import {
  parseWalkForward,
  type WalkForwardWindow,
  walkForwardWindows,
} from "../metrics/overfitting/walk-forward-windows.js";
import type { Metrics } from "../metrics/types.js";
import { applyCombination, type Combination } from "./axes.js";
import { executeSweep, type SweepHandle } from "./execute.js";
import type { PreparedSweep } from "./plan.js";
import type { CombinationOutcome, CombinationRun } from "./run-combination.js";
import { better, type Objective, objectiveValue } from "./summary.js";
import { dataUpTo } from "./window-data.js";

// Walk-forward: for each window, the sweep over its training span picks the best settings, and
// those settings run on the test span after it. Each span runs exactly as `agenticbt run --from
// <its first bar> --to <its last bar>` would: the data is cut after its last bar (no later bar is
// in memory) and every bar before its first is indicator history only. The test span's history so
// includes the training span, as `run --from` keeps every earlier bar of the file.

/** One span of a window: its bars (indices into the loaded data, both ends included). */
export interface WalkForwardSpan {
  from: string;
  to: string;
  firstBar: number;
  lastBar: number;
  bars: number;
  /** Bars before `firstBar`, read only as indicator history. */
  historyBars: number;
}

/** One window: the in-sample best settings, and their metrics in and out of sample. */
export interface WalkForwardWindowResult {
  window: number;
  train: WalkForwardSpan;
  test: WalkForwardSpan;
  /** Combinations of the training sweep that completed / failed. */
  completed: number;
  failed: number;
  /** The training sweep's best (its index in the grid, settings, objective value), or null. */
  best: { index: number; settings: Combination; value: number } | null;
  inSample: Metrics | null;
  outOfSample: Metrics | null;
  /** The objective's value out of sample, or null with why. */
  outOfSampleValue: Figure;
  /** The out-of-sample run's status and error (a strategy may fail on new data). */
  outOfSampleStatus: CombinationOutcome["status"] | null;
  outOfSampleError: string | null;
}

/** Metrics of the out-of-sample spans stitched together, each continuing from the last's equity. */
export interface StitchedMetrics {
  start: string;
  end: string;
  bars: number;
  trades: number;
  equityFinal: number | null;
  returnPct: number | null;
  buyHoldReturnPct: number | null;
  returnAnnPct: number | null;
  volatilityAnnPct: number | null;
  cagrPct: number | null;
  sharpe: number | null;
  sortino: number | null;
  calmar: number | null;
  maxDrawdownPct: number | null;
  avgDrawdownPct: number | null;
  maxDrawdownDurationDays: number | null;
}

/** summary.json's `walkForward`. */
export interface WalkForwardResult {
  /** `--walk-forward` as given. */
  spec: string;
  anchored: boolean;
  objective: Objective;
  windows: WalkForwardWindowResult[];
  /** null (with `stitchedReason`) when a window's out-of-sample run has no equity. */
  stitched: StitchedMetrics | null;
  stitchedReason: string | null;
  /** Reasons the stitched metrics that are null are null. */
  stitchedNullReasons: Record<string, string>;
  /** Mean over the windows of the objective in sample (the best's) and out of sample. */
  inSampleMean: Figure;
  outOfSampleMean: Figure;
  /** outOfSampleMean / inSampleMean: 1 kept all of the in-sample figure, 0 none of it. */
  ratio: Figure;
}

export interface WalkForwardOptions {
  /** `train=…,test=…[,anchored]` (checked by parseWalkForward). */
  spec: string;
  jobs: number;
  strategyPath: string | null;
  onWindow?: (w: WalkForwardWindowResult, windows: number) => void;
  onStart?: (handle: SweepHandle) => void;
}

/** Checks a `--walk-forward` text and that the data holds one window of it (before the sweep). */
export function checkWalkForward(spec: string, prepared: PreparedSweep): WalkForwardWindow[] {
  return walkForwardWindows(
    prepared.data.times.subarray(prepared.base.startIndex),
    parseWalkForward(spec),
  );
}

/** The stitched out-of-sample equity at each close, beside buy-and-hold over the same bars. */
export interface StitchedCurve {
  times: Float64Array;
  equity: Float64Array;
  benchmark: Float64Array;
}

/** Runs the walk-forward; null when it was stopped (the handle given to `onStart`). */
export async function walkForward(
  prepared: PreparedSweep,
  o: WalkForwardOptions,
): Promise<{ result: WalkForwardResult; curve: StitchedCurve | null } | null> {
  const parsed = parseWalkForward(o.spec);
  const s0 = prepared.base.startIndex;
  const { times } = prepared.data;
  const windows = checkWalkForward(o.spec, prepared);
  const intraday = isIntraday(times);
  const span = (first: number, last: number): WalkForwardSpan => ({
    from: timeLabel(times[first] as number, intraday),
    to: timeLabel(times[last] as number, intraday),
    firstBar: first,
    lastBar: last,
    bars: last - first + 1,
    historyBars: first,
  });
  const results: WalkForwardWindowResult[] = [];
  const curves: { equity: Float64Array | null; cash: number; first: number }[] = [];
  let stopped = false;
  for (const [k, w] of windows.entries()) {
    const train = span(s0 + w.trainFrom, s0 + w.trainTo);
    const test = span(s0 + w.testFrom, s0 + w.testTo);
    const ins = await runSpan(prepared, train, prepared.combos, o, () => {
      stopped = true;
    });
    if (stopped) return null;
    let best: { index: number; value: number; outcome: CombinationOutcome } | null = null;
    let completed = 0;
    let failed = 0;
    for (const { outcome } of ins) {
      if (outcome.status === "completed") completed++;
      else if (outcome.status === "failed") failed++;
      const value = objectiveValue(outcome, prepared.objective);
      if (value !== null && better({ index: outcome.index, value }, best, prepared.objective))
        best = { index: outcome.index, value, outcome };
    }
    let oos: CombinationRun | null = null;
    if (best !== null) {
      const [run] = await runSpan(prepared, test, [best.outcome.settings], o, () => {
        stopped = true;
      });
      if (stopped) return null;
      oos = run ?? null;
    }
    const out = oos?.outcome ?? null;
    const value = out === null ? null : objectiveValue(out, prepared.objective);
    const result: WalkForwardWindowResult = {
      window: k + 1,
      train,
      test,
      completed,
      failed,
      best: best && { index: best.index, settings: best.outcome.settings, value: best.value },
      inSample: best?.outcome.metrics ?? null,
      outOfSample: out?.metrics ?? null,
      outOfSampleValue:
        best === null
          ? noFigure("no combination of the training span completed with a value")
          : value === null
            ? noFigure(
                out?.error
                  ? `the out-of-sample run failed: ${out.error.message}`
                  : (out?.nullReasons[prepared.objective.metric] ?? "no value out of sample"),
              )
            : figure(value),
      outOfSampleStatus: out?.status ?? null,
      outOfSampleError: out?.error ? `${out.error.type}: ${out.error.message}` : null,
    };
    results.push(result);
    const cash =
      best === null
        ? prepared.base.broker.initialCash
        : applyCombination(prepared.axes, best.outcome.settings, prepared.base).broker.initialCash;
    curves.push({ equity: oos?.equity ?? null, cash, first: test.firstBar });
    o.onWindow?.(result, windows.length);
  }
  const { curve, ...stitched } = stitch(prepared, results, curves);
  return {
    result: {
      spec: o.spec,
      anchored: parsed.anchored,
      objective: prepared.objective,
      windows: results,
      ...stitched,
      ...ratioOf(results),
    },
    curve,
  };
}

/** The combinations `combos` over one span, as `run --from/--to` of the span runs them. */
async function runSpan(
  prepared: PreparedSweep,
  span: WalkForwardSpan,
  combos: readonly Combination[],
  o: WalkForwardOptions,
  onStop: () => void,
): Promise<CombinationRun[]> {
  const runs: CombinationRun[] = [];
  const { stopped } = await executeSweep(
    {
      ...prepared,
      data: dataUpTo(prepared.data, span.lastBar),
      base: { ...prepared.base, startIndex: span.firstBar },
      combos: [...combos],
    },
    {
      jobs: o.jobs,
      strategyPath: o.strategyPath,
      onRun: (run) => runs.push(run),
      ...(o.onStart ? { onStart: o.onStart } : {}),
    },
  );
  if (stopped) onStop();
  return runs;
}

const STITCHED_KEYS = [
  "equityFinal",
  "returnPct",
  "returnAnnPct",
  "volatilityAnnPct",
  "cagrPct",
  "sharpe",
  "sortino",
  "calmar",
  "maxDrawdownPct",
  "avgDrawdownPct",
  "maxDrawdownDurationDays",
] as const;

/** The out-of-sample equity curves end to end, each scaled to start from where the last ended. */
function stitch(
  prepared: PreparedSweep,
  results: readonly WalkForwardWindowResult[],
  curves: readonly { equity: Float64Array | null; cash: number; first: number }[],
): Pick<WalkForwardResult, "stitched" | "stitchedReason" | "stitchedNullReasons"> & {
  curve: StitchedCurve | null;
} {
  const none = (reason: string) => ({
    stitched: null,
    stitchedReason: reason,
    stitchedNullReasons: {},
    curve: null,
  });
  const missing = results.find((r, k) => curves[k]?.equity == null || r.outOfSample === null);
  if (missing !== undefined)
    return none(`window ${missing.window}'s out-of-sample run has no equity or metrics`);
  const n = curves.reduce((a, c) => a + (c.equity as Float64Array).length, 0);
  const equity = new Float64Array(n);
  const times = new Float64Array(n);
  const cash = curves[0]?.cash ?? prepared.base.broker.initialCash;
  let at = 0;
  let level = cash;
  for (const c of curves) {
    const e = c.equity as Float64Array;
    const scale = level / c.cash;
    for (let i = 0; i < e.length; i++) {
      equity[at + i] = (e[i] as number) * scale;
      times[at + i] = prepared.data.times[c.first + i] as number;
    }
    at += e.length;
    level = equity[at - 1] ?? level;
  }
  const stats = computeCurveStats(times, equity, cash);
  const nullReasons: Record<string, string> = {};
  const value = (k: (typeof STITCHED_KEYS)[number]): number | null => {
    const v = stats[k];
    if (typeof v === "number") return v;
    nullReasons[k] = v.reason;
    return null;
  };
  const first = curves[0]?.first ?? 0;
  const last = first + n - 1;
  const hold = buyAndHoldEquity(dataUpTo(prepared.data, last), cash, first);
  const holdEnd = hold[hold.length - 1];
  const intraday = isIntraday(prepared.data.times);
  const stitched: StitchedMetrics = {
    start: timeLabel(times[0] as number, intraday),
    end: timeLabel(times[n - 1] as number, intraday),
    bars: n,
    trades: results.reduce((a, r) => a + (r.outOfSample?.trades ?? 0), 0),
    equityFinal: value("equityFinal"),
    returnPct: value("returnPct"),
    buyHoldReturnPct: holdEnd === undefined ? null : (holdEnd / cash - 1) * 100,
    returnAnnPct: value("returnAnnPct"),
    volatilityAnnPct: value("volatilityAnnPct"),
    cagrPct: value("cagrPct"),
    sharpe: value("sharpe"),
    sortino: value("sortino"),
    calmar: value("calmar"),
    maxDrawdownPct: value("maxDrawdownPct"),
    avgDrawdownPct: value("avgDrawdownPct"),
    maxDrawdownDurationDays: value("maxDrawdownDurationDays"),
  };
  if (holdEnd === undefined) nullReasons.buyHoldReturnPct = "no bar out of sample";
  return {
    stitched,
    stitchedReason: null,
    stitchedNullReasons: nullReasons,
    curve: { times, equity, benchmark: hold },
  };
}

/** The objective's mean in and out of sample over the windows where both are numbers. */
function ratioOf(
  results: readonly WalkForwardWindowResult[],
): Pick<WalkForwardResult, "inSampleMean" | "outOfSampleMean" | "ratio"> {
  const both = results.filter((r) => r.best !== null && r.outOfSampleValue.value !== null);
  if (both.length === 0) {
    const why = noFigure("no window has the objective both in and out of sample");
    return { inSampleMean: why, outOfSampleMean: why, ratio: why };
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const ins = mean(both.map((r) => (r.best as { value: number }).value));
  const oos = mean(both.map((r) => r.outOfSampleValue.value as number));
  return {
    inSampleMean: figure(ins),
    outOfSampleMean: figure(oos),
    ratio:
      ins > 0
        ? figure(oos / ins)
        : noFigure(
            `the in-sample mean is ${ins === 0 ? "0" : "negative"}: a ratio to it does not read as a share of it`,
          ),
  };
}
