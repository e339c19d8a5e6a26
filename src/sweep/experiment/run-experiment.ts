import path from "node:path";
import type { UsageSnapshot } from "../../agent/llm/usage-meter.js";
import { UsageError } from "../../errors/usage-error.js";
import type { ExperimentMetric } from "../../metrics/experiment/metrics.js";
import { simpleReturns } from "../../metrics/returns.js";
import { runTurnover } from "../../report/compare-facts.js";
import { readEquityCsv } from "../../report/html/report-model.js";
import { readResult } from "../../rundir/run-record.js";
import type { RunResult } from "../../rundir/run-result.js";
import { replayRunConfig } from "../../runner/replay-config.js";
import type { ResumePlan } from "../../runner/resume-run.js";
import type { RunConfig } from "../../runner/run-config.js";
import type { RunHandle } from "../../runner/simulate.js";
import { writeJsonAtomic } from "../../util/atomic-write.js";
import { createSweepDir, lockSweep } from "../sweep-dir.js";
import { sweepFile } from "../sweep-layout.js";
import {
  type BilledRun,
  type BudgetLimit,
  billedRunOf,
  budgetLimitOf,
  budgetRefusal,
} from "./experiment-budget.js";
import {
  appendJsonLine,
  EXPERIMENT_KIND,
  EXPERIMENT_STARTED_FILE,
  type ExperimentConfig,
  type ExperimentResultLine,
  type ExperimentStartLine,
  readExperimentConfig,
  readExperimentResults,
  readExperimentStarts,
} from "./experiment-dir.js";
import type { ExperimentEvent } from "./experiment-events.js";
import { writeExperimentPage } from "./experiment-page.js";
import {
  cellLabel,
  experimentRuns,
  type PlannedRun,
  runNamespace,
  windowLabel,
} from "./experiment-plan.js";
import { type ExperimentSummary, spentUsd, summarizeExperiment } from "./experiment-summary.js";

/** What an experiment tells its caller as it goes. */
export interface ExperimentEvents {
  /** The experiment's handle: stop() interrupts the runs in flight and starts no more. */
  onStart?: (handle: { stop(): void }) => void;
  /** The experiment's typed events, with the runs' own events (what a live view is drawn from). */
  onEvent?: (event: ExperimentEvent) => void;
  /** Where the runs run when not here (`sweep --queue`: a queue's workers). */
  remote?: RemoteRuns;
}

/** One run as it is sent to be run elsewhere: its plan, its full run config and the attempt
 * that config is for (its persistent store's namespace is that attempt's). */
export interface RemoteRunSpec {
  run: PlannedRun;
  config: RunConfig;
  attempt: number;
}

/** How a run sent elsewhere ended: its line of results.jsonl (null: interrupted), its run
 * directory and the attempt it ran as; the failure of its job (its attempts used up); or the
 * budget's refusal to start it (no line: a resume asks again). */
export type RemoteRunOutcome =
  | { kind: "done"; outcome: PlannedRunOutcome; attempt: number }
  | { kind: "failed"; error: string }
  | { kind: "refused"; reason: string };

/** `--budget-usd` as the remote runs hold it where they start: the limit, and the runs the
 * experiment finished before (by key), whose bills count. */
export interface RemoteBudget {
  limit: BudgetLimit;
  billed: Map<string, BilledRun>;
}

/** Runs an experiment's runs on other processes or machines (the queue's workers). */
export interface RemoteRuns {
  /** Sends every run at once; `started(key)` resolves when a worker starts the run (its budget
   * place taken), `result(key)` when it is back; `close()` stops waiting (the runs not yet back
   * resolve as interrupted). With a budget, each run is started only if it allows. */
  submit(
    experimentId: string,
    runs: RemoteRunSpec[],
    budget: RemoteBudget | null,
  ): Promise<RemoteBatch>;
}

/** The runs sent by `RemoteRuns.submit`. */
export interface RemoteBatch {
  started(key: string): Promise<void>;
  result(key: string): Promise<RemoteRunOutcome>;
  close(): Promise<void>;
}

/** A finished run, as runPlannedRun gives it. */
export interface PlannedRunOutcome {
  /** null: interrupted (no line: a resume continues it). */
  line: ExperimentResultLine | null;
  runId: string;
  /** The run's directory ("" when none was made). */
  dir: string;
}

/** How a run directory goes on from its checkpoint; null when it cannot (killed before its
 * first checkpoint, a persistent store): the run starts again. */
export async function planRunResume(dir: string): Promise<ResumePlan | null> {
  const { planResume } = await import("../../runner/resume-run.js");
  try {
    return planResume(dir, path.dirname(dir));
  } catch {
    return null;
  }
}

/**
 * One planned run through the same runner as a local experiment, with no experiment directory:
 * what a queue's worker runs. A run refused before its directory existed gets the failed line a
 * local experiment writes.
 */
export async function runPlannedRun(
  run: PlannedRun,
  config: RunConfig,
  o: {
    /** Go on from this run directory's checkpoint (planRunResume's plan), else start anew. */
    resume?: { dir: string; plan: ResumePlan } | null;
    /** Told the run's directory as soon as it exists. */
    onRunDir?: (dir: string) => void;
  } = {},
): Promise<PlannedRunOutcome> {
  const { runBacktest } = await import("../../runner/run-backtest.js");
  const resume = o.resume?.plan ?? null;
  let started = o.resume
    ? { runId: path.basename(o.resume.dir), dir: o.resume.dir }
    : { runId: "", dir: "" };
  try {
    const result = await runBacktest(resume?.config ?? config, {
      onEvent: (e) => {
        if (e.type === "run_started" && e.dir !== "" && resume === null) {
          started = { runId: e.id, dir: e.dir };
          o.onRunDir?.(e.dir);
        }
      },
      ...(resume ? { resume } : {}),
    });
    if (result.status === "interrupted") return { line: null, ...started };
    return {
      line: resultLine(run, result, path.join(config.runsRoot, result.id)),
      runId: result.id,
      dir: started.dir || path.join(config.runsRoot, result.id),
    };
  } catch (err) {
    return { line: failedLine(run, err), ...started };
  }
}

/** What a new experiment is made of (its id and dir are made here). */
export type NewExperiment = Omit<ExperimentConfig, "kind" | "id" | "createdAt" | "total">;

/** Creates the experiment's directory and config.json, then runs it. */
export async function runNewExperiment(
  root: string,
  spec: NewExperiment,
  events: ExperimentEvents = {},
): Promise<{ dir: string; summary: ExperimentSummary }> {
  const { id, dir } = createSweepDir(root, spec.name);
  const config: ExperimentConfig = {
    kind: EXPERIMENT_KIND,
    id,
    createdAt: new Date().toISOString(),
    ...spec,
    total: experimentRuns(spec).length,
  };
  writeJsonAtomic(sweepFile(dir, "config"), config);
  return { dir, summary: await runExperiment(dir, config, events) };
}

/** `agenticbt resume <experiment>`: the runs it lacks, the ones in flight from their checkpoints. */
export async function resumeExperiment(
  dir: string,
  events: ExperimentEvents = {},
): Promise<{ dir: string; summary: ExperimentSummary }> {
  const config = readExperimentConfig(dir);
  if (config === null)
    throw new UsageError(`${dir} is not an experiment (its config.json says so).`);
  return { dir, summary: await runExperiment(dir, config, events) };
}

/** A new experiment that re-runs `original`'s runs from their transcripts (zero network). */
export function replaySpec(originalDir: string, name: string | null): NewExperiment {
  const original = readExperimentConfig(originalDir);
  if (original === null)
    throw new UsageError(
      `${originalDir} is not an LLM experiment's directory: --replay takes the sweep an LLM experiment wrote (.agenticbt/sweeps/<id>).`,
    );
  return {
    name: name ?? `${original.name}-replay`,
    axes: original.axes,
    cells: original.cells,
    windows: original.windows,
    repeats: original.repeats,
    seed: original.seed,
    jobs: original.jobs,
    // A replay costs nothing: no budget to hold it to.
    budgetUsd: null,
    replayOf: path.resolve(originalDir),
  };
}

/** The run config of one run of a cell: its window, its repeat's seed, its own store. */
export function plannedRunConfig(
  config: ExperimentConfig,
  run: PlannedRun,
  attempt: number,
): RunConfig {
  const cell = config.cells[run.cell];
  const window = config.windows[run.window];
  if (!cell || !window) throw new RangeError(`run ${run.key} is outside the experiment`);
  const base = cell.run;
  return attemptRunConfig(
    {
      ...base,
      from: window.from,
      to: window.to,
      name: `${config.name}-${run.key}`,
      agent: base.agent && { ...base.agent, seed: run.seed },
    },
    config.id,
    run,
    attempt,
  );
}

/** A run's config for one attempt: a persistent store gets that attempt's namespace, so a run
 * started again (here, or by a queue's worker that took it over) never reads what the attempt
 * before it wrote. Other memory systems keep their config. */
export function attemptRunConfig(
  config: RunConfig,
  experimentId: string,
  run: PlannedRun,
  attempt: number,
): RunConfig {
  if (config.memory?.system !== "persistent") return config;
  return {
    ...config,
    memory: {
      ...config.memory,
      config: {
        ...(config.memory.config as Record<string, unknown> | null),
        namespace: runNamespace(experimentId, run, attempt),
      },
    },
  };
}

/** result.json's `llm.usage` (typed loosely there: the agent's meter writes it). */
const usageOf = (r: RunResult) => (r.llm?.usage ?? null) as UsageSnapshot | null;

/** The fields of a results.jsonl line that name its planned run (first, in this order). */
const planned = ({ key, cell, window, repeat, seed }: PlannedRun) => ({
  key,
  cell,
  window,
  repeat,
  seed,
});

/** A finished run's line of results.jsonl (`dir`: its run directory). */
function resultLine(run: PlannedRun, result: RunResult, dir: string): ExperimentResultLine {
  const m = result.metrics;
  const usage = usageOf(result);
  const metrics: Record<ExperimentMetric, number | null> = {
    returnPct: m?.returnPct ?? null,
    sharpe: m?.sharpe ?? null,
    maxDrawdownPct: m?.maxDrawdownPct ?? null,
    trades: m?.trades ?? null,
    // Not in result.json (its figures stay as they are): read from the run's own files.
    turnover: result.status === "completed" ? runTurnover(dir) : null,
    tokens: usage ? usage.tokens.prompt + usage.tokens.completion : null,
    costUsd: usage?.cost.usd ?? null,
  };
  const calls = usage?.calls;
  return {
    ...planned(run),
    runId: result.id,
    status: result.status,
    error: result.error ? `${result.error.type}: ${result.error.message}` : null,
    metrics,
    buyHoldReturnPct: result.benchmark.metrics?.returnPct ?? null,
    calls: { network: calls?.network ?? 0, cache: calls?.cache ?? 0, replay: calls?.replay ?? 0 },
  };
}

/** A run whose queue job failed on every attempt: recorded failed, with the job's error. */
class RemoteRunError extends Error {
  override readonly name = "QueueJobFailed";
}

function failedLine(run: PlannedRun, err: unknown): ExperimentResultLine {
  const none = { returnPct: null, sharpe: null, maxDrawdownPct: null, trades: null };
  return {
    ...planned(run),
    runId: "",
    status: "failed",
    error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    metrics: { ...none, turnover: null, tokens: null, costUsd: null },
    buyHoldReturnPct: null,
    calls: { network: 0, cache: 0, replay: 0 },
  };
}

/**
 * Runs every run of the experiment its results.jsonl lacks, `config.jobs` at a time, then writes
 * summary.json and report.html. A run that had started (started.jsonl) goes on from its own
 * checkpoint when it can be resumed, else starts again (a persistent store of its own each
 * time). An interrupted run gets no line: the next resume continues it.
 */
async function runExperiment(
  dir: string,
  config: ExperimentConfig,
  events: ExperimentEvents,
): Promise<ExperimentSummary> {
  const lock = lockSweep(dir);
  const { runBacktest } = await import("../../runner/run-backtest.js");
  try {
    const resultsFile = sweepFile(dir, "results");
    const startedFile = path.join(dir, EXPERIMENT_STARTED_FILE);
    const done = new Set(readExperimentResults(dir).map((l) => l.key));
    const starts = new Map<string, ExperimentStartLine>();
    for (const s of readExperimentStarts(startedFile)) starts.set(s.key, s);
    const original = config.replayOf === null ? null : originalRuns(config.replayOf);
    const queue = experimentRuns(config).filter((r) => !done.has(r.key));
    let finished = done.size;
    const emit = events.onEvent ?? (() => {});
    {
      const prior = readExperimentResults(dir);
      const byKey = new Map(prior.map((l) => [l.key, l]));
      const lines = [...byKey.values()];
      emit({
        type: "experiment_started",
        id: config.id,
        name: config.name,
        total: config.total,
        done: lines.length,
        failed: lines.filter((l) => l.status !== "completed").length,
        spentUsd: spentUsd(lines),
        tokens: lines.reduce((n, l) => n + (l.metrics.tokens ?? 0), 0),
        jobs: events.remote ? null : Math.max(1, config.jobs),
        budgetUsd: config.budgetUsd ?? null,
      });
    }
    let stopping = false;
    let budgetStop: string | null = null;
    const inFlight = new Set<RunHandle>();
    const remote = events.remote ?? null;
    // --budget-usd: what finished runs were billed, and each cell's estimate of a run.
    const billed = readExperimentResults(dir);
    const limit: BudgetLimit = budgetLimitOf(config);
    // Through a queue every run is sent at once, each with the config a local run would have
    // (a run that had started starts again: its checkpoint is on the machine that ran it). The
    // budget is held where each run starts: on the workers, against the spend they share.
    const batch =
      remote === null
        ? null
        : await remote.submit(
            config.id,
            queue.map((run) => {
              const before = starts.get(run.key) ?? null;
              return {
                run,
                config: firstConfig(run, before),
                attempt: (before?.attempt ?? 0) + 1,
              };
            }),
            limit.usd === null
              ? null
              : { limit, billed: new Map(billed.map((l) => [l.key, billedRunOf(l)])) },
          );
    events.onStart?.({
      stop() {
        stopping = true;
        for (const h of inFlight) h.interrupt();
        void batch?.close();
      },
    });

    /** A run's config when it does not go on from a checkpoint: a replay's, or the plan's. */
    function firstConfig(run: PlannedRun, before: ExperimentStartLine | null): RunConfig {
      if (original !== null && config.cells[run.cell]?.code !== true) {
        const from = original.get(run.key);
        if (from === undefined) throw new UsageError(`${run.key} has no completed run to replay`);
        return replayRunConfig(from, path.dirname(from), `${config.name}-${run.key}`);
      }
      return plannedRunConfig(config, run, (before?.attempt ?? 0) + 1);
    }

    /** A run began: labels as the summary writes them. */
    const tellRunStarted = (run: PlannedRun, resumed: boolean, remote: boolean) => {
      const cell = config.cells[run.cell];
      const window = config.windows[run.window];
      emit({
        type: "run_started",
        run,
        cell: cell ? cellLabel(cell.settings) : String(run.cell),
        window: window ? windowLabel(window) : String(run.window),
        resumed,
        remote,
      });
    };
    /** A run's directory and attempt on record (started.jsonl): where a resume goes on from. */
    const recordStart = (start: ExperimentStartLine) => {
      starts.set(start.key, start);
      appendJsonLine(startedFile, start);
    };
    /** A run's line on record (results.jsonl), and told. */
    const recordLine = (line: ExperimentResultLine): ExperimentResultLine => {
      appendJsonLine(resultsFile, line);
      finished += 1;
      emit({ type: "run_finished", line, done: finished, total: config.total });
      return line;
    };

    const runRemote = async (
      run: PlannedRun,
      remoteBatch: RemoteBatch,
    ): Promise<ExperimentResultLine | null> => {
      const back = remoteBatch.result(run.key);
      // Queued until a worker starts it: till then the run is waiting, not running.
      const startedFirst = await Promise.race([
        remoteBatch.started(run.key).then(() => true),
        back.then(() => false),
      ]);
      if (startedFirst) tellRunStarted(run, false, true);
      const got = await back;
      if (got.kind === "refused") {
        // Left unstarted, as a local experiment leaves the runs after the budget's first no.
        budgetStop ??= got.reason;
        emit({ type: "run_left", key: run.key, reason: `not started: ${got.reason}` });
        return null;
      }
      // Back before its start was heard of (an event missed): started all the same.
      if (!startedFirst && (got.kind === "failed" || got.outcome.line !== null))
        tellRunStarted(run, false, true);
      if (got.kind === "failed") throw new RemoteRunError(got.error);
      // The attempt the worker ran (one more than planned when it took over a killed worker's
      // job and started it again): a later resume starts the one after it.
      const { attempt } = got;
      const { line, runId, dir: runDir } = got.outcome;
      if (runDir !== "") recordStart({ key: run.key, runId, dir: runDir, attempt });
      if (line === null) {
        emit({ type: "run_left", key: run.key, reason: "interrupted: a resume continues it" });
        return null;
      }
      return recordLine(line);
    };

    const runOne = async (run: PlannedRun): Promise<ExperimentResultLine | null> => {
      if (batch !== null) return runRemote(run, batch);
      const before = starts.get(run.key) ?? null;
      const attempt = (before?.attempt ?? 0) + 1;
      const resume = before === null ? null : await planRunResume(before.dir);
      const config1 = resume !== null ? resume.config : firstConfig(run, before);
      tellRunStarted(run, resume !== null, false);
      let handle: RunHandle | null = null;
      const result = await runBacktest(config1, {
        onEvent: (e) => {
          emit({ type: "run_event", key: run.key, event: e });
          if (e.type === "run_started" && resume === null && e.dir !== "") {
            recordStart({ key: run.key, runId: e.id, dir: e.dir, attempt });
          } else if (e.type === "warning") {
            emit({ type: "warning", key: run.key, message: e.message });
          }
        },
        onStart: (h) => {
          handle = h;
          inFlight.add(h);
          if (stopping) h.interrupt();
        },
        ...(resume ? { resume } : {}),
      }).finally(() => {
        if (handle) inFlight.delete(handle);
      });
      if (result.status === "interrupted") return null;
      return recordLine(resultLine(run, result, path.join(config1.runsRoot, result.id)));
    };

    /** The cells of the runs in flight, one entry a run. */
    const running: number[] = [];
    // Through a queue the workers ask budgetRefusal as each run starts.
    const budgetAllows = (next: PlannedRun): boolean => {
      if (batch !== null) return true;
      const refusal = budgetRefusal(limit, billed.map(billedRunOf), running, next.cell);
      budgetStop ??= refusal;
      return refusal === null;
    };

    const worker = async () => {
      for (;;) {
        const run = queue[0];
        if (run === undefined || stopping) return;
        if (!budgetAllows(run)) {
          stopping = true;
          return;
        }
        queue.shift();
        running.push(run.cell);
        try {
          const line = await runOne(run);
          if (line !== null) billed.push(line);
        } catch (err) {
          // Refused before a run directory existed (bad data, a missing recording): on record.
          recordLine(failedLine(run, err));
        } finally {
          running.splice(running.indexOf(run.cell), 1);
        }
      }
    };
    // Through a queue, the workers set the pace: every run is waited for at once.
    const waiters = batch !== null ? Math.max(1, queue.length) : Math.max(1, config.jobs);
    try {
      await Promise.all(Array.from({ length: waiters }, worker));
    } finally {
      await batch?.close();
    }
    // In the plan's order, whatever order the runs finished in (several at once, or a queue's
    // workers): the bootstrap resamples the lines in order, so the summary is the same.
    const order = new Map(experimentRuns(config).map((r, k) => [r.key, k]));
    const lines = readExperimentResults(dir).sort(
      (a, b) => (order.get(a.key) ?? 0) - (order.get(b.key) ?? 0),
    );
    const complete = new Set(lines.map((l) => l.key)).size === config.total;
    const summary = summarizeExperiment(
      config,
      lines,
      complete ? "completed" : "interrupted",
      new Date().toISOString(),
      budgetStop,
      (l) => runReturns(config, l),
    );
    writeJsonAtomic(sweepFile(dir, "summary"), summary);
    writeExperimentPage(dir, config, lines, summary);
    emit({ type: "experiment_finished", status: summary.status, budgetStop });
    return summary;
  } finally {
    lock.release();
  }
}

/** A completed run's per-bar returns from its equity.csv; null when it cannot be read. */
function runReturns(config: ExperimentConfig, l: ExperimentResultLine): Float64Array | null {
  const cell = config.cells[l.cell];
  if (!cell || l.runId === "") return null;
  const dir = path.join(cell.run.runsRoot, l.runId);
  try {
    return simpleReturns(readEquityCsv(dir, readResult(dir)).equity);
  } catch {
    // Removed or damaged since: the DSR is made from the runs that can be read.
    return null;
  }
}

/** The original experiment's completed runs by key: the run directories a replay re-runs. */
function originalRuns(originalDir: string): Map<string, string> {
  const config = readExperimentConfig(originalDir);
  if (config === null) throw new UsageError(`${originalDir} is not an LLM experiment's directory.`);
  const out = new Map<string, string>();
  for (const l of readExperimentResults(originalDir)) {
    const cell = config.cells[l.cell];
    if (cell && l.runId !== "") out.set(l.key, path.join(cell.run.runsRoot, l.runId));
  }
  return out;
}
