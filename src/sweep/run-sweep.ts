import { DEFAULT_CSCV_BLOCKS } from "../config/sweep-settings.js";
import { UsageError } from "../errors/usage-error.js";
import { buyAndHoldEquity } from "../metrics/buy-and-hold.js";
import { checkCscvBlocks } from "../metrics/overfitting/pbo.js";
import type { RunResult } from "../rundir/run-result.js";
import { loadData } from "../runner/load-data.js";
import { loadStrategy } from "../runner/load-strategy.js";
import type { RunConfig } from "../runner/run-config.js";
import { applyCombination, type Combination } from "./axes.js";
import { CurveReader } from "./curves.js";
import { type ExecuteOptions, executeSweep, type SweepHandle } from "./execute.js";
import { jobsOf, type PreparedSweep, prepareSweep } from "./plan.js";
import type { CombinationOutcome } from "./run-combination.js";
import { barReturns, searchStatistics } from "./search-statistics.js";
import { better, objectiveValue, ranked, summarize } from "./summary.js";
import {
  createSweepDir,
  lockSweep,
  ResultsLog,
  readSweepConfig,
  readSweepResults,
  readSweepSummary,
  type SweepConfig,
  type SweepSummaryFile,
  writeSweepConfig,
  writeSweepSummary,
} from "./sweep-dir.js";
import { sweepFile } from "./sweep-layout.js";
import { type BestCurve, writeSweepReport } from "./sweep-page.js";
import {
  checkWalkForward,
  type StitchedCurve,
  type WalkForwardWindowResult,
  walkForward,
} from "./walk-forward.js";

/** The best combination so far, as progress shows it. */
export interface BestSoFar {
  index: number;
  settings: Combination;
  value: number;
}

/** What a sweep tells its renderer (the live view, plain lines, or a library callback). */
export type SweepEvent =
  | {
      type: "sweep_started";
      id: string;
      dir: string;
      name: string;
      total: number;
      /** Combinations a resume found finished already. */
      done: number;
      jobs: number;
      objective: string;
    }
  | {
      type: "combination";
      outcome: CombinationOutcome;
      done: number;
      total: number;
      failed: number;
      best: BestSoFar | null;
      perSecond: number;
      etaMs: number | null;
    }
  | { type: "warning"; message: string }
  | { type: "top_run"; index: number; runId: string }
  | { type: "walk_forward_started"; windows: number; spec: string }
  | { type: "walk_forward_window"; result: WalkForwardWindowResult; windows: number }
  | { type: "sweep_finished"; dir: string; summary: SweepSummaryFile };

/** What runs a sweep's combinations: `executeSweep` on this machine, or another (a job queue). */
export type SweepExecutor = (
  p: PreparedSweep,
  o: ExecuteOptions & { dir: string; config: SweepConfig },
) => Promise<{ stopped: boolean }>;

export interface SweepDirOptions {
  onEvent?: (e: SweepEvent) => void;
  onStart?: (handle: SweepHandle) => void;
  /** Runs the combinations elsewhere (a job queue); by default on this machine's threads. */
  execute?: SweepExecutor;
}

/** A new sweep's settings (config.json without what the sweep adds: id, date, total). */
export type NewSweep = Omit<SweepConfig, "kind" | "id" | "createdAt" | "total">;

/** Loads the data and the strategy of a sweep's config and makes its combinations. */
async function prepare(run: RunConfig, search: SweepConfig["search"]): Promise<PreparedSweep> {
  const loaded = loadData(run);
  const strategy = await loadStrategy(run.strategyPath);
  return prepareSweep({
    ...loaded,
    strategy,
    strategyPath: run.strategyPath,
    run,
    search,
  });
}

/** `agenticbt sweep`: a new sweep directory under `root`, run to its end (or a stop). */
export async function runNewSweep(
  root: string,
  spec: NewSweep,
  o: SweepDirOptions = {},
): Promise<{ dir: string; summary: SweepSummaryFile }> {
  const prepared = await prepare(spec.run, spec.search);
  // The statistics' settings are refused before any directory is made or combination run.
  checkCscvBlocks(spec.cscvBlocks ?? DEFAULT_CSCV_BLOCKS);
  if (spec.walkForward) checkWalkForward(spec.walkForward, prepared);
  const { id, dir } = createSweepDir(root, spec.name);
  const lock = lockSweep(dir);
  try {
    const config: SweepConfig = {
      kind: "sweep",
      id,
      createdAt: new Date().toISOString(),
      ...spec,
      // The values as the axes typed them (`"0.001"` → 0.001): a resume reads them back as such.
      search: {
        ...spec.search,
        grid: prepared.axes.map((a) => ({ name: a.name, values: a.values })),
      },
      total: prepared.combos.length,
    };
    writeSweepConfig(dir, config);
    return await sweepInDir(dir, config, prepared, [], o);
  } finally {
    lock.release();
  }
}

/** `agenticbt resume <sweep>`: runs the combinations results.jsonl lacks, then the summary. */
export async function resumeSweep(
  dir: string,
  o: SweepDirOptions = {},
): Promise<{ dir: string; summary: SweepSummaryFile }> {
  const config = readSweepConfig(dir);
  if (config === null)
    throw new UsageError(`${dir} is not a sweep directory (no sweep config.json).`);
  if (readSweepSummary(dir)?.status === "completed")
    throw new UsageError(
      `${dir} is complete already (summary.json says so): there is nothing to resume. agenticbt show ${config.id} prints it.`,
    );
  const lock = lockSweep(dir);
  try {
    const prepared = await prepare(config.run, config.search);
    if (prepared.combos.length !== config.total)
      throw new UsageError(
        `${dir}: its settings now make ${prepared.combos.length} combinations, not the ${config.total} it was started with (the strategy's parameters changed?). Start a new sweep.`,
      );
    return await sweepInDir(dir, config, prepared, readSweepResults(dir), o);
  } finally {
    lock.release();
  }
}

async function sweepInDir(
  dir: string,
  config: SweepConfig,
  prepared: PreparedSweep,
  before: CombinationOutcome[],
  o: SweepDirOptions,
): Promise<{ dir: string; summary: SweepSummaryFile }> {
  const emit = o.onEvent ?? (() => {});
  const jobs = jobsOf(config.jobs);
  const total = prepared.combos.length;
  const outcomes = [...before];
  const skip = new Set(before.map((b) => b.index));
  const { objective } = prepared;
  let best: BestSoFar | null = null;
  let failed = 0;
  for (const b of before) {
    if (b.status === "failed") failed++;
    const value = objectiveValue(b, objective);
    if (value !== null && better({ index: b.index, value }, best, objective))
      best = { index: b.index, settings: b.settings, value };
  }
  emit({
    type: "sweep_started",
    id: config.id,
    dir,
    name: config.name,
    total,
    done: before.length,
    jobs,
    objective: `${objective.direction} ${objective.metric}`,
  });
  for (const message of prepared.warnings) emit({ type: "warning", message });
  const log = new ResultsLog(dir);
  // CPU time read outside the wall window: a reading costs up to 2 ms in this process.
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let ranNow = 0;
  let stopped: boolean;
  try {
    const execute = o.execute ?? executeSweep;
    ({ stopped } = await execute(prepared, {
      dir,
      config,
      jobs,
      strategyPath: config.run.strategyPath,
      skip,
      onStart: o.onStart,
      onRun: (run) => {
        log.add(run);
        const { outcome } = run;
        outcomes.push(outcome);
        ranNow++;
        if (outcome.status === "failed") failed++;
        const value = objectiveValue(outcome, objective);
        if (value !== null && better({ index: outcome.index, value }, best, objective))
          best = { index: outcome.index, settings: outcome.settings, value };
        const elapsed = performance.now() - t0;
        const perSecond = elapsed > 0 ? (ranNow / elapsed) * 1000 : 0;
        const left = total - outcomes.length;
        emit({
          type: "combination",
          outcome,
          done: outcomes.length,
          total,
          failed,
          best,
          perSecond,
          etaMs: perSecond > 0 ? (left / perSecond) * 1000 : null,
        });
      },
    }));
  } finally {
    log.flush();
  }
  const sweepMs = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  outcomes.sort((a, b) => a.index - b.index);
  const curves = new CurveReader(sweepFile(dir, "curves"));
  const completed = new Set(outcomes.filter((o) => o.status === "completed").map((o) => o.index));
  const returnsOf = (index: number) => {
    const equity = completed.has(index) ? curves.read(index) : null;
    return equity === null ? null : barReturns(equity);
  };
  const summary: SweepSummaryFile = {
    id: config.id,
    name: config.name,
    status: stopped || outcomes.length < total ? "interrupted" : "completed",
    ...summarize(outcomes, total, objective, (best) =>
      searchStatistics({
        outcomes,
        returnsOf,
        best,
        cscvBlocks: config.cscvBlocks ?? DEFAULT_CSCV_BLOCKS,
      }),
    ),
    topRuns: [],
    timings: {
      sweepMs: Math.round(sweepMs * 10) / 10,
      sweepCpuMs: Math.round((cpu.user + cpu.system) / 100) / 10,
      combinationsPerSecond: ranNow > 0 ? Math.round((ranNow / sweepMs) * 1000 * 10) / 10 : null,
      walkForwardMs: null,
    },
    walkForward: null,
    finishedAt: null,
  };
  let walkForwardCurve: StitchedCurve | null = null;
  if (summary.status === "completed" && config.walkForward) {
    const windows = checkWalkForward(config.walkForward, prepared).length;
    emit({ type: "walk_forward_started", windows, spec: config.walkForward });
    const w0 = performance.now();
    const walked = await walkForward(prepared, {
      spec: config.walkForward,
      jobs,
      strategyPath: config.run.strategyPath,
      onWindow: (result) => emit({ type: "walk_forward_window", result, windows }),
      ...(o.onStart ? { onStart: o.onStart } : {}),
    });
    summary.timings.walkForwardMs = Math.round((performance.now() - w0) * 10) / 10;
    summary.walkForward = walked?.result ?? null;
    walkForwardCurve = walked?.curve ?? null;
    // Stopped during the walk-forward: a resume runs it again (its combinations are all done).
    if (summary.walkForward === null) summary.status = "interrupted";
  }
  if (summary.status === "completed" && config.top > 0) {
    for (const out of ranked(outcomes, objective).slice(0, config.top)) {
      if (objectiveValue(out, objective) === null) break;
      const result = await topRun(config, prepared, out, summary.topRuns.length + 1);
      summary.topRuns.push({ index: out.index, runId: result.id });
      emit({ type: "top_run", index: out.index, runId: result.id });
    }
  }
  summary.finishedAt = new Date().toISOString();
  writeSweepSummary(dir, summary);
  try {
    writeSweepReport(
      dir,
      config,
      summary,
      outcomes,
      bestCurve(curves, prepared, summary),
      walkForwardCurve,
    );
  } catch (err) {
    emit({ type: "warning", message: `report.html was not written: ${(err as Error).message}` });
  }
  emit({ type: "sweep_finished", dir, summary });
  return { dir, summary };
}

/** A full run directory for a combination, as `agenticbt run` with its settings writes it. */
async function topRun(
  config: SweepConfig,
  prepared: PreparedSweep,
  out: CombinationOutcome,
  rank: number,
): Promise<RunResult> {
  const { params, broker } = applyCombination(prepared.axes, out.settings, config.run);
  // Loaded for `--top` only: the run directory's modules (memory systems, SQLite…) cost every
  // sweep's start about a tenth of its CPU time otherwise.
  const { runBacktest } = await import("../runner/run-backtest.js");
  return runBacktest({ ...config.run, params, broker, name: `${config.name}-top${rank}` });
}

function bestCurve(
  curves: CurveReader,
  prepared: PreparedSweep,
  summary: SweepSummaryFile,
): BestCurve | null {
  if (summary.best === null) return null;
  const equity = curves.read(summary.best.index);
  if (equity === null) return null;
  const { broker } = applyCombination(prepared.axes, summary.best.settings, prepared.base);
  const start = prepared.base.startIndex;
  const benchmark = buyAndHoldEquity(
    prepared.data,
    broker.initialCash,
    start,
    (n) => new Float64Array(n),
  );
  const times = prepared.data.times.subarray(start, start + equity.length);
  return { times, equity, benchmark: benchmark.subarray(0, equity.length) };
}
