import fs from "node:fs";
import path from "node:path";
import type { ResumedCalls } from "../agent/llm/resumed-calls.js";
import {
  DEFAULT_CHECKPOINT_EVERY,
  DEFAULT_CODE_CHECKPOINT_MIN_MS,
} from "../config/run-settings.js";
import { isIntraday, timeLabel } from "../engine/calendar.js";
import { RunWriteError, UsageError } from "../errors/run-errors.js";
import { MemoryInputError, MemoryPathError } from "../memory/memory-errors.js";
import {
  DEFAULT_MEMORY_SYSTEM,
  memorySystemEntry,
  UnknownMemorySystemError,
} from "../memory/memory-registry.js";
import type {
  MemoryModelMessage,
  MemoryMoment,
  MemorySystemEntry,
  MemorySystemFactory,
} from "../memory/memory-system.js";
import { DEFAULT_MEMORY_POLICY, recordedPolicy } from "../memory/policy/memory-policy.js";
import { PolicyLayer } from "../memory/policy/policy-layer.js";
import { PolicyState } from "../memory/policy/policy-state.js";
import { sha256 } from "../memory/recall/sync-index.js";
import {
  type MemorySeed,
  MemoryWorkspace,
  readMemoryCopy,
  readPreset,
} from "../memory/workspace.js";
import type { PriceSource } from "../report/html/price-data.js";
import type {
  ChartWindow,
  CurveColumns,
  RejectedLines,
  ReportInputs,
  ReportParts,
} from "../report/html/report-model.js";
import {
  type Checkpoint,
  Checkpointer,
  dropSavedState,
  MemoryTally,
  readCheckpointState,
} from "../rundir/checkpoint.js";
import { EquityStream, type EquityWrite } from "../rundir/equity-stream.js";
import { RUN_FILE, runFile, SIMULATION_OUTPUTS } from "../rundir/layout.js";
import { snapshotMemory } from "../rundir/memory-snapshot.js";
import { resolveRunDir } from "../rundir/resolve-run.js";
import { RunGuard } from "../rundir/run-guard.js";
import { createRunDir } from "../rundir/run-id.js";
import { computeRunMetrics } from "../rundir/run-metrics.js";
import { checkRecallOptions, RunRecall, recallIndexOptions } from "../rundir/run-recall.js";
import type { ResumeRecord, RunResult } from "../rundir/run-result.js";
import { readAppended } from "../rundir/state-files.js";
import { storeStrategy } from "../rundir/strategy-copy.js";
import { writeOutput } from "../rundir/write-outputs.js";
import type { ContextActivity } from "../strategy/context.js";
import type { Params, Strategy } from "../strategy/types.js";
import { writeJsonAtomic } from "../util/atomic-write.js";
import { NotAFileError, SymlinkError } from "../util/no-follow.js";
import type { DataPreload } from "./data-preload.js";
import { traceText } from "./decision-traces.js";
import { applyRunMetrics, finishResult, roundMs, startResult } from "./finish-result.js";
import { DEFAULT_HOOK_TIMEOUT_S } from "./hook-timeout.js";
import { checkRunConfig } from "./library-settings.js";
import { cacheFailureWarning } from "./llm-cache-warning.js";
import { type LoadedData, loadData } from "./load-data.js";
import { loadStrategy } from "./load-strategy.js";
import { type LookAheadGuard, lookAheadGuard } from "./look-ahead-guard.js";
import { memoryPort } from "./memory-port.js";
import { memoryToolbox } from "./memory-toolbox.js";
import { llmPlaybook, playbookFor } from "./playbook.js";
import type { PreparedLlm } from "./prepare-llm-strategy.js";
import { resolveParams } from "./resolve-params.js";
import type { ResumePlan } from "./resume-run.js";
import type { MemoryChoice, RunConfig } from "./run-config.js";
import type { RunEventListener } from "./run-events.js";
import { decodeRunState, type RunRestore } from "./run-state.js";
import { type RunHandle, type Simulated, simulate } from "./simulate.js";

export type { RunHandle };

export interface RunOptions {
  onEvent?: RunEventListener;
  /** Receives a handle as soon as the run exists (for Ctrl-C). */
  onStart?: (handle: RunHandle) => void;
  /** Continue this killed or interrupted run in its own directory (`agenticbt resume`). */
  resume?: ResumePlan;
  /** The data files, being parsed by a worker thread since the command line was read (it must
   * load `config`'s files with `config`'s options). */
  preload?: DataPreload | null;
}

/**
 * The one loop of a backtest. Bad data or a bad strategy throw before any run directory exists;
 * once the directory exists, every outcome (completed, failed, interrupted) ends in a complete
 * result.json, and every file is written atomically.
 */
export async function runBacktest(config: RunConfig, options: RunOptions = {}): Promise<RunResult> {
  const guarded: Guarded = { guard: null, started: null };
  // Checked as the command line checks its options, before anything is read or written.
  const checked = checkRunConfig(config);
  try {
    return await runGuarded(checked, options, guarded);
  } catch (err) {
    failStarted(guarded, err);
    throw err;
  }
}

/** The run's guard once its directory exists, and its result once result.json says `running`. */
interface Guarded {
  guard: RunGuard | null;
  started: RunResult | null;
}

/**
 * Anything thrown past the run's start ends it `failed`, with the reason, when that can still be
 * written (the error goes on to the caller either way).
 */
function failStarted({ guard, started }: Guarded, err: unknown): void {
  if (guard === null || guard.settled) return;
  if (started === null) {
    guard.finish();
    return;
  }
  started.status = "failed";
  started.error = { type: (err as Error).name || "Error", message: (err as Error).message };
  started.finishedAt = new Date().toISOString();
  try {
    writeJsonAtomic(runFile(guard.dir, "result"), started);
    guard.finish();
  } catch {
    guard.abandon();
  }
}

/**
 * A run in its stages: each returns what the next needs. Only `prepare` runs before the run
 * directory exists; from `openRunDir` on, the guard ends the run whatever happens.
 */
async function runGuarded(
  config: RunConfig,
  options: RunOptions,
  guarded: Guarded,
): Promise<RunResult> {
  const emit = options.onEvent ?? (() => {});
  const prepared = await prepare(config, options);
  const opened = openRunDir(config, prepared, guarded);
  const simulated = await simulateRun(config, options, prepared, opened, emit);
  const written = await writeOutputs(config, prepared, opened, simulated);
  return finish(prepared, opened, simulated, written, emit);
}

/** What a run loads and checks before its directory exists (a failure here leaves nothing). */
interface Prepared {
  t0: number;
  loadMs: number;
  loaded: LoadedData;
  llm: PreparedLlm | null;
  code: Strategy<unknown> | null;
  strategyText: string | Buffer;
  source: string;
  params: Params;
  copied: MemorySeed[];
  presets: MemorySeed[];
  /** Other runs' report summaries (`--recall-sources reports`). */
  reports: MemorySeed[];
  resume: ResumePlan | null;
  resuming: typeof import("./resume-run.js") | null;
  lookAhead: LookAheadGuard;
  memoryChoice: MemoryChoice;
  memoryFactory: MemorySystemFactory;
}

/** Loads the data and the strategy, resolves the parameters, reads every memory source. */
async function prepare(config: RunConfig, options: RunOptions): Promise<Prepared> {
  const t0 = performance.now();
  const source = config.strategySource ?? config.strategyPath;
  const loadCode = async () => {
    // An LLM trader's modules (the agent, its tools and client) load only for an LLM run.
    const llm = config.agent
      ? await (await import("./prepare-llm-strategy.js")).prepareLlmStrategy(
          config.strategyPath,
          config.agent,
          source,
        )
      : null;
    return { llm, code: llm ? null : await loadStrategy(config.strategyPath) };
  };
  let loaded: LoadedData;
  let strategyLoad: Promise<Awaited<ReturnType<typeof loadCode>>>;
  const preload = options.preload ?? null;
  if (preload === null) {
    loaded = loadData(config);
    strategyLoad = loadCode();
  } else {
    // The strategy loads while the worker parses; the data's error, if any, still comes first
    // (the load again in this thread throws it, exactly).
    strategyLoad = loadCode();
    strategyLoad.catch(() => {});
    loaded = (await preload.result()) ?? loadData(config);
  }
  const { data, startIndex, dataInfo, warnings } = loaded;
  const { llm, code } = await strategyLoad;
  const strategyText = llm ? llm.prompt : fs.readFileSync(path.resolve(source));
  const params = resolveParams(code?.params ?? {}, config.params);
  // A resume with a memory snapshot restores it: the sources need not be there any more.
  const seeding = !options.resume?.memorySnapshot;
  const memoryFrom =
    seeding && config.memoryFrom ? resolveRunDir(config.memoryFrom, config.runsRoot) : null;
  // Read (and checked: no links) before the run directory exists, so a bad source leaves nothing.
  const copied = memoryFrom ? seedsFor("--memory-from", () => readMemoryCopy(memoryFrom)) : [];
  const presets = (seeding ? config.presets : []).map((p) =>
    seedsFor(`--preset ${p.target}=${p.file}`, () => readPreset(p.target, p.file)),
  );
  checkRecallOptions(config.recall);
  const reports = seeding ? await recallSourceSeeds(config) : [];
  const resume = options.resume ?? null;
  const resuming = resume ? await import("./resume-run.js") : null;
  if (resume && resuming) resuming.checkResumeInputs(resume, dataInfo, sha256(strategyText));
  const lookAhead = lookAheadGuard(config, data, startIndex);
  if (lookAhead.warning !== null) warnings.push(lookAhead.warning);
  const memoryChoice = config.memory ?? { system: DEFAULT_MEMORY_SYSTEM, config: null };
  // The system's module loads here: a run never loads the systems it does not use.
  const memoryFactory = await checkedMemoryFactory(memoryChoice).load();
  const loadMs = performance.now() - t0;
  return {
    t0,
    loadMs,
    loaded,
    llm,
    code,
    strategyText,
    source,
    params,
    copied,
    reports,
    presets,
    resume,
    resuming,
    lookAhead,
    memoryChoice,
    memoryFactory,
  };
}

/** The run directory, guarded, with config.json and result.json (`running`) written. */
interface Opened {
  id: string;
  dir: string;
  guard: RunGuard;
  result: RunResult;
  memoryRestored: boolean;
  strategyName: string;
  intraday: boolean;
  label: (i: number) => string;
  checkpoint: Checkpoint | null;
}

function openRunDir(config: RunConfig, p: Prepared, guarded: Guarded): Opened {
  const { llm, code, params, resume, resuming } = p;
  const { data, startIndex, dataInfo, warnings } = p.loaded;
  const name = config.name ?? llm?.name ?? code?.name ?? "run";
  const { id, dir } = resume ?? createRunDir(config.runsRoot, name);
  // From here until result.json is final, no end of the process leaves the run `running`.
  // A resume takes the dead run's lock over; a second resume at once is refused here, untouched.
  const guard = new RunGuard(dir, resume ? "resume" : "run");
  guarded.guard = guard;
  const strategyCopy = resume
    ? resume.strategyCopy
    : storeStrategy(dir, llm ? "llm" : "code", p.strategyText, p.source);
  // Everything below may change the directory: a resume's checks are all behind it.
  const memoryRestored = resume && resuming ? resuming.prepareResume(resume) : false;
  const intraday = isIntraday(data.times);
  const label = (i: number) => timeLabel(data.times[i] ?? 0, intraday);
  // The strategy is built after result.json exists (the memory it needs writes playbook.md,
  // and a run directory with memory files always has a result.json): its name is known before.
  const strategyName = llm ? llm.name : (code as Strategy<unknown>).name;
  const startedAt = resume?.previous.startedAt ?? new Date().toISOString();
  const result = startResult({
    id,
    name,
    strategy: {
      kind: llm ? "llm" : "code",
      path: config.strategyPath,
      name: strategyName,
      params,
      ...strategyCopy,
    },
    dataInfo,
    data,
    startIndex,
    label,
    warnings,
    loadMs: p.loadMs,
    startedAt,
  });
  if (p.lookAhead.record) result.lookAhead = p.lookAhead.record;
  const checkpoint = resume?.checkpoint ?? null;
  if (resume) {
    const record: ResumeRecord = {
      at: new Date().toISOString(),
      fromBar: checkpoint ? checkpoint.time : null,
      bar: checkpoint ? checkpoint.bar : null,
    };
    result.resumed = [...(resume.previous.resumed ?? []), record];
  } else {
    // paramOverrides: what `--param` set (params holds the merged values): `list` shows these.
    const paramOverrides = config.paramOverrides ?? config.params;
    writeJsonAtomic(runFile(dir, "config"), {
      id,
      ...config,
      params,
      paramOverrides,
      strategyCopy,
    });
  }
  writeJsonAtomic(runFile(dir, "result"), result);
  guarded.started = result;
  guard.attach(result);
  return { id, dir, guard, result, memoryRestored, strategyName, intraday, label, checkpoint };
}

/** The simulation's end, with what the later stages finish: the memory, recall and the agent. */
interface SimulatedRun {
  simulated: Simulated;
  memory: PolicyLayer;
  recall: RunRecall;
  /** equity.csv's worker finishing the file (a long run), or null: written by this thread. */
  equity: EquityOutput;
}

/** equity.csv's writer during and after the simulation, as a second Ctrl-C finds it. */
class EquityOutput {
  stream: EquityStream | null = null;
  write: EquityWrite | null = null;

  /** A second Ctrl-C: the process exits next, so the worker first finishes the file, or drops
   * it during the simulation (its temp file would stay behind otherwise). */
  abortSync(): void {
    if (this.write) this.write.finishSync();
    else this.stream?.cancelSync();
  }
}

/** Seeds the memory, builds the strategy and runs the bars, writing equity.csv as they close. */
async function simulateRun(
  config: RunConfig,
  options: RunOptions,
  p: Prepared,
  o: Opened,
  emit: RunEventListener,
): Promise<SimulatedRun> {
  const { llm, code, params, lookAhead } = p;
  const { data, startIndex, warnings } = p.loaded;
  const { id, dir, guard, result, strategyName, intraday } = o;
  // The handle exists before the first bar: a signal during setup interrupts at the first bar.
  let loop: RunHandle | null = null;
  // equity.csv: written by a worker as bars close (a long run), then finished after the last one.
  const equity = new EquityOutput();
  let interruptAsked = false;
  options.onStart?.({
    interrupt: () => {
      interruptAsked = true;
      loop?.interrupt();
      // A model call waiting out a rate limit (or still answering) would hold the bar for minutes.
      llm?.stop();
    },
    abort: (signal) => {
      equity.abortSync();
      guard.abort(signal);
    },
  });
  const restore =
    p.resume && o.checkpoint
      ? resumeState(o.checkpoint, dir, startIndex, llm !== null, emit)
      : null;
  emit({
    type: "run_started",
    id,
    dir,
    strategy: strategyName,
    kind: llm ? "llm" : "code",
    symbols: [...data.symbols],
    bars: result.period.requested.bars,
    start: result.period.requested.start,
    end: result.period.requested.end,
    initialCash: config.broker.initialCash,
    resumedFrom:
      restore !== null && o.checkpoint
        ? { time: o.checkpoint.time, done: o.checkpoint.bar + 1 - startIndex }
        : null,
  });
  for (const w of warnings) emit({ type: "warning", message: w });

  const { memory, recall, files, checkpointer, onDecision } = startMemory(config, p, o, emit);
  const resumed = llm && p.resume ? await resumedCalls(dir) : null;
  const strategy: Strategy<unknown> = llm
    ? await llm.create({
        runDir: dir,
        startIndex,
        totalBars: data.times.length - startIndex,
        timeLabelOf: (t) => timeLabel(t, intraday),
        broker: config.broker,
        onEvent: emit,
        memory,
        resumed,
        onWarning: (message) => emit({ type: "warning", message }),
        anonymizer: lookAhead.anonymizer,
        realTimes: data.times,
      })
    : (code as Strategy<unknown>);

  if (p.resume && !o.checkpoint) {
    emit({
      type: "warning",
      message:
        "resume re-executes from the first bar: the run stopped before its first checkpoint.",
    });
  }
  const equityFile = runFile(dir, "equity");
  const simulating = simulate({
    data,
    broker: config.broker,
    strategy,
    startIndex,
    params,
    memory: files,
    toolbox: memoryToolbox(memory),
    ...(memory.usesMoments ? { onMemoryMoment: (m: MemoryMoment) => memory.onMoment(m) } : {}),
    ...(onDecision ? { onDecision } : {}),
    onEvent: options.onEvent,
    onStart: (h) => {
      loop = h;
      if (interruptAsked) h.interrupt();
    },
    onColumns: (columns) => {
      equity.stream = EquityStream.start(equityFile, columns);
    },
    onSlice: (lastClosed) => equity.stream?.advance(lastClosed + 1 - startIndex),
    strategyPath: config.strategyPath,
    checkpoint: checkpointer,
    hookTimeoutMs: hookTimeoutOf(config),
    restore,
  });
  let simulated: Simulated;
  try {
    simulated = await simulating;
  } catch (err) {
    // Never expected (simulate() reports a strategy's failure in its result), but a worker left
    // waiting would keep its temp file.
    equity.stream?.cancelSync();
    throw err;
  } finally {
    checkpointer.close();
  }
  // The rows are all there: the worker writes the last of them, then computes the metrics, while
  // this thread writes the other files; result.json (the commit point) waits for it below.
  equity.write =
    equity.stream?.end(simulated.equity.length, {
      startIndex: simulated.startIndex,
      lastIndex: simulated.lastIndex,
      trades: simulated.trades,
      exposedBars: simulated.exposedBars,
      commissions: simulated.commissions,
      slippage: simulated.slippage,
      initialCash: config.broker.initialCash,
    }) ?? null;
  const record = result.resumed?.at(-1);
  if (p.resume && record) {
    record.continued = restore !== null;
    record.simulatedBars = Math.max(
      0,
      simulated.lastIndex - (restore?.state.bar ?? startIndex - 1),
    );
  }
  // A divergence is the resume's failure, not the strategy's: no bar or line to point at.
  if (simulated.error?.type === "resume_divergence") {
    simulated.error = { type: simulated.error.type, message: simulated.error.message };
  }
  // Only a run that reached its end without passing the checkpoint's bar diverged; one interrupted
  // on the way there stays interrupted (its checkpoint is untouched) and can be resumed again.
  const unreached = simulated.status === "completed" ? checkpointer.unreached() : null;
  if (unreached !== null) {
    simulated.status = "failed";
    simulated.error = { type: "resume_divergence", message: unreached };
  }
  const agentFailure = simulated.status === "completed" ? (llm?.endFailure() ?? null) : null;
  // Said at the end, where the user reads the summary (it is in result.json's warnings too).
  const endWarning = simulated.status === "completed" ? (llm?.endWarning() ?? null) : null;
  if (endWarning !== null) emit({ type: "warning", message: endWarning });
  if (agentFailure) {
    simulated.status = "failed";
    simulated.error = agentFailure;
  }
  return { simulated, memory, recall, equity };
}

/** The run's memory, as the strategy will see it: seeded (or restored by a resume), snapshotted
 * for a later resume, indexed for recall, under the memory policy, counted by the checkpointer. */
function startMemory(config: RunConfig, p: Prepared, o: Opened, emit: RunEventListener) {
  const { llm, code, params, lookAhead } = p;
  const { data, startIndex } = p.loaded;
  const { id, dir, label, checkpoint } = o;
  const workspace = new MemoryWorkspace({ dir, runId: id });
  // The memory policy layer over whichever system runs: recall obeys it, evolution moves it.
  // Built before the memory's start snapshot: its policy_overrides.json is part of that start.
  const policy = new PolicyState(
    dir,
    recordedPolicy(config.memoryPolicy?.policy) ?? DEFAULT_MEMORY_POLICY,
    config.memoryPolicy?.overrides ?? {},
  );
  if (!o.memoryRestored) {
    workspace.seed(p.copied, "copied");
    workspace.seed(p.reports, "copied");
    workspace.seed(p.presets, "preset");
    workspace.init(
      llm
        ? llmPlaybook(llm.name, config.strategyPath)
        : playbookFor(code as Strategy<unknown>, params),
    );
    snapshotMemory(dir);
  }
  // The memory's clock: the bar times, shifted in an anonymized run.
  const memoryTimes = lookAhead.memoryTimes(data.times);
  const recall = new RunRecall(
    dir,
    config.recall,
    config.agent?.replay ?? null,
    process.env,
    memoryTimes,
    (t) => policy.at(t),
  );
  const memoryTally = new MemoryTally();
  // Built below, read by the checkpointer only after the first bar.
  let memory: PolicyLayer;
  const checkpointer = new Checkpointer({
    dir,
    runId: id,
    every: config.checkpointEvery ?? DEFAULT_CHECKPOINT_EVERY[llm ? "llm" : "code"],
    minIntervalMs:
      config.checkpointEvery === undefined && !llm ? DEFAULT_CODE_CHECKPOINT_MIN_MS : 0,
    label,
    memory: memoryTally,
    usage: () => llm?.progress()?.usage ?? null,
    transcript: llm ? () => llm.progress()?.transcript ?? { bytes: 0, lines: 0 } : null,
    expected: checkpoint,
    // Only a model call can be cut short: a code run has nothing to hold a checkpoint for.
    hold: llm ? () => llm.cutShort() : undefined,
    // An LLM run saves none (a checkpoint after every decision): its resume replays the transcript.
    state: llm
      ? null
      : (i, v, settled) => {
          // Memory on disk is the state of the run's last write, not of the checkpoint's bar.
          if (memoryTally.writes > 0) {
            return { skipped: "the strategy wrote memory, which is not saved at each checkpoint" };
          }
          if (memory.usesMoments) {
            return {
              skipped: `the ${memory.name} memory's own state is not saved at each checkpoint`,
            };
          }
          return v.snapshot(i, settled);
        },
  });
  const files = memoryTally.wrap(lookAhead.memoryPort(memoryPort(workspace, recall)));
  memory = new PolicyLayer(
    p.memoryFactory.create({
      dir,
      runId: id,
      config: p.memoryChoice.config,
      barTimes: memoryTimes,
      replayOf: config.agent?.replay ?? null,
      files,
      fileStats: () => ({ ...workspace.stats() }),
      startIndex,
      policy,
      warn: (message) => emit({ type: "warning", message }),
      // Bound late: the agent's client exists once the strategy is built, before the first bar.
      ...(llm
        ? {
            complete: (purpose: string, messages: readonly MemoryModelMessage[]) =>
              llm.memoryModel()?.(purpose, messages) ?? Promise.resolve(null),
          }
        : {}),
      rewritePlaybook: (text, at) => {
        const written = workspace.rewritePlaybook(text, at);
        recall.written(written.path, at);
        return written.backup;
      },
      embeddings:
        recallIndexOptions(config.recall, process.env, config.agent?.replay ?? null).embeddings ??
        null,
      market: data,
      ...(lookAhead.anonymizer
        ? { symbolName: (symbol: string) => lookAhead.anonymizer?.symbol(symbol) ?? symbol }
        : {}),
    }),
    policy,
  );
  // Decision traces: written after each recorded decision, indexed as the next write, and
  // counted with the strategy's writes (a state checkpoint does not hold them: re-execute).
  const onDecision = (config.recall.sources ?? []).includes("traces")
    ? (index: number, kind: string, a: ContextActivity) => {
        const text = traceText(kind, a);
        const at = memoryTimes[index];
        if (text === null || at === undefined) return;
        memoryTally.add("trace", "", text, at);
        recall.written(workspace.trace(text, at).path, at);
      }
    : null;
  return { memory, recall, files, checkpointer, onDecision };
}

/** What is left after the outputs: the time they took, and the page's inputs. */
interface Written {
  t2: number;
  report: ReturnType<typeof reportPage>;
  reportInputs: ReportInputs;
}

/**
 * Completes result.json's fields and writes the simulation's outputs (layout.ts's
 * SIMULATION_OUTPUTS, in order) while equity.csv's worker finishes; the first write error fails
 * the run.
 */
async function writeOutputs(
  config: RunConfig,
  p: Prepared,
  o: Opened,
  s: SimulatedRun,
): Promise<Written> {
  const { dir, result } = o;
  const { simulated, memory, recall, equity } = s;
  const { llm } = p;
  const t2 = performance.now();
  const { times, equity: equityCurve, benchmark: bench } = simulated;
  // Handled below, after this thread's own writes.
  equity.write?.done.catch(() => {});
  const curve = { times, equity: equityCurve, benchmark: bench };
  const report = reportPage();
  // The first error in the order the outputs are listed is the run's: one before equity.csv's
  // place wins over the worker's, one after it loses to it (as when everything ran in order).
  let failure: { err: unknown; afterEquity: boolean } | null = null;
  let atEquity = false;
  const initialCash = config.broker.initialCash;
  try {
    // With a worker, its metrics are put in below (their fields exist already: same key order).
    finishResult(result, simulated, initialCash, equity.write ? "later" : undefined);
    memory.finish();
    result.memorySystem = memory.name;
    result.memory = memory.stats();
    result.index = recall.finish();
    result.llm = llm?.info() ?? null;
    const cacheWarning = cacheFailureWarning(result.llm);
    if (cacheWarning !== null) result.warnings.push(cacheWarning);
    for (const w of llm?.warnings() ?? []) result.warnings.push(w);
    for (const role of SIMULATION_OUTPUTS) {
      if (role === "equity") {
        atEquity = true;
        // The worker writes it.
        if (equity.write !== null) continue;
      }
      writeOutput(dir, role, simulated);
    }
  } catch (err) {
    failure = { err, afterEquity: atEquity };
  }
  // The page's lines, trades, rejected orders and price charts need no metrics: made now, while
  // equity.csv's worker finishes the file and computes them (its tail is the run's last wait).
  const prices: PriceSource = { series: p.loaded.data.series };
  const rejected = simulated.rejectedOrders;
  const rejectedOrders: RejectedLines = {
    total: rejected.length,
    line: (k) => simulated.orderLog.line(rejected[k] as number),
  };
  const reportInputs: ReportInputs = { curve, prices, rejectedOrders };
  const parts = await report.parts(dir, result.period, prices, rejectedOrders);
  if (parts !== null) reportInputs.parts = parts;
  const curveLines = await report.curveLines(curve);
  if (curveLines !== null) reportInputs.curveLines = curveLines;
  if (equity.write !== null) {
    const summary = await equity.write.summary;
    applyRunMetrics(result, summary ? summary.metrics : computeRunMetrics(simulated, initialCash));
    try {
      await equity.write.done;
    } catch (err) {
      if (failure === null || failure.afterEquity) failure = { err, afterEquity: false };
    }
    equity.write = null;
  }
  if (failure !== null) {
    // A full disk (or any write error): the run fails with the file named in the message.
    const err = failure.err as Error;
    result.status = "failed";
    result.error = { type: err.name || "Error", message: err.message };
  }
  return { t2, report, reportInputs };
}

/** result.json, final (the commit point), then report.html, which never fails the run. */
async function finish(
  p: Prepared,
  o: Opened,
  s: SimulatedRun,
  w: Written,
  emit: RunEventListener,
): Promise<RunResult> {
  const { dir, guard, result } = o;
  result.timings = {
    loadMs: roundMs(p.loadMs),
    simulateMs: roundMs(s.simulated.simulateMs),
    writeMs: roundMs(performance.now() - w.t2),
    totalMs: roundMs(performance.now() - p.t0),
  };
  result.finishedAt = new Date().toISOString();
  try {
    writeJsonAtomic(runFile(dir, "result"), result);
  } catch (err) {
    guard.abandon();
    throw new RunWriteError(dir, result, err);
  }
  guard.finish();
  // Only an interrupted run is resumed again: any other end drops its saved state (megabytes).
  if (result.status !== "interrupted") dropSavedState(dir);
  const reportWarning = await w.report.write(dir, w.reportInputs);
  if (reportWarning !== null) emit({ type: "warning", message: reportWarning });
  emit({ type: "run_finished", result });
  return result;
}

/** `--hook-timeout`, or its default: 10 minutes for code, none for an LLM strategy (each model
 * request has its own --timeout and --max-retries, so its hooks cannot hang). */
function hookTimeoutOf(config: RunConfig): number | null {
  if (config.hookTimeoutMs !== undefined) return config.hookTimeoutMs;
  return config.agent ? null : DEFAULT_HOOK_TIMEOUT_S * 1000;
}

/**
 * report.html from the arrays in memory; a page that cannot be written never fails the run. Its
 * modules start loading at once, and its curve can be drawn early (while this thread waits for
 * equity.csv's worker): after result.json, only the page is left.
 */
function reportPage() {
  const modules = Promise.all([
    import("../report/html/write-report.js"),
    import("../report/html/report-model.js"),
  ]);
  // A module that cannot load is reported by write() below.
  modules.catch(() => {});
  return {
    async curveLines(curve: CurveColumns): Promise<ReportInputs["curveLines"] | null> {
      try {
        const [, { curveSeries }] = await modules;
        return curveSeries(curve);
      } catch {
        return null;
      }
    },
    /** Null when they cannot be made now: write() then makes them itself (and reports why). */
    async parts(
      dir: string,
      window: ChartWindow,
      prices: PriceSource,
      rejectedOrders: RejectedLines,
    ): Promise<ReportParts | null> {
      try {
        const [, { reportParts }] = await modules;
        return reportParts(dir, window, prices, rejectedOrders);
      } catch {
        return null;
      }
    },
    async write(dir: string, inputs: ReportInputs): Promise<string | null> {
      try {
        const [{ writeRunReport }] = await modules;
        writeRunReport(dir, inputs);
        return null;
      } catch (err) {
        return `report.html was not written (${(err as Error).message}); agenticbt report ${path.basename(dir)} retries.`;
      }
    },
  };
}

/** Why an LLM run saves no state: what a resume does instead. */
const LLM_NOT_SAVED =
  "an LLM agent's conversation is not saved; its recorded model calls are answered from " +
  `${RUN_FILE.transcript} instead (no network, no cost)`;

/**
 * The state a resume continues from (saved with its checkpoint), or null when there is none:
 * the run then re-executes from its first bar, which the output says, with what that costs.
 */
function resumeState(
  checkpoint: Checkpoint,
  dir: string,
  startIndex: number,
  llm: boolean,
  emit: RunEventListener,
): RunRestore | null {
  let reason: string;
  try {
    const read = llm ? { skipped: LLM_NOT_SAVED } : readCheckpointState(dir, checkpoint);
    if (!("bytes" in read)) reason = read.skipped;
    else {
      const state = decodeRunState(read.bytes);
      const grown =
        checkpoint.appended &&
        readAppended(dir, checkpoint.appended, {
          bars: checkpoint.bar + 1 - startIndex,
          orders: checkpoint.orderLines,
          decisions: checkpoint.decisionLines,
          settled: state.settled,
        });
      if (state.bar !== checkpoint.bar) {
        reason = `the saved state is of bar ${state.bar}, not ${checkpoint.bar}`;
      } else if (!grown) {
        reason = `the files in ${RUN_FILE.resume}/ hold less than the checkpoint recorded`;
      } else return { state, ...grown };
    }
  } catch (err) {
    reason = `the saved state cannot be read (${(err as Error).message})`;
  }
  const seconds = ((checkpoint.elapsedMs ?? 0) / 1000).toFixed(1);
  emit({
    type: "warning",
    message: `resume re-executes from the first bar (${seconds} s of work up to the checkpoint at ${checkpoint.time}): ${reason}.`,
  });
  return null;
}

/** A resumed LLM run's recorded model calls, from its transcript (the agent's modules load here). */
async function resumedCalls(dir: string): Promise<ResumedCalls> {
  const [{ ResumedCalls }, { readTranscript }] = await Promise.all([
    import("../agent/llm/resumed-calls.js"),
    import("../agent/llm/transcript.js"),
  ]);
  return new ResumedCalls(readTranscript(runFile(dir, "transcript")), dir);
}

/** An LLM trader's playbook starts empty of lessons: its manual is the strategy prompt, which is
 * in every request already. Lessons the agent appends accumulate here (and carry over with
 * --memory-from). */
/** `--memory`'s system and its config, checked before a run directory exists (exit code 2). */
function checkedMemoryFactory(choice: MemoryChoice): MemorySystemEntry {
  try {
    const factory = memorySystemEntry(choice.system);
    factory.resolveConfig?.(choice.config);
    return factory;
  } catch (err) {
    if (err instanceof UnknownMemorySystemError) throw new UsageError(err.message);
    throw new UsageError(`--memory ${choice.system}: ${(err as Error).message}`);
  }
}

/** A memory source that cannot be used is bad input (exit code 2), named by its option. */
/**
 * Other runs' reports for `--recall-sources reports`: the runs root's finished runs, or for a
 * replay the reports the recorded run read. Any extra source is refused with --anonymize: reports
 * and traces name real symbols and dates.
 */
async function recallSourceSeeds(config: RunConfig): Promise<MemorySeed[]> {
  const sources = config.recall.sources ?? [];
  const extra = sources[0];
  if (config.agent?.anonymize && extra !== undefined) {
    throw new UsageError(
      `--recall-sources ${extra} cannot be used with --anonymize: ${extra} name real symbols ` +
        "and dates, which the anonymized model must not see. Drop one of the two.",
    );
  }
  if (!sources.includes("reports")) return [];
  const { readRecordedReportSeeds, readReportSeeds } = await import("./report-sources.js");
  const replay = config.agent?.replay ?? null;
  return seedsFor("--recall-sources reports", () =>
    replay === null
      ? readReportSeeds(config.runsRoot)
      : readRecordedReportSeeds(resolveRunDir(replay, config.runsRoot)),
  );
}

function seedsFor<T extends MemorySeed | MemorySeed[]>(option: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    const bad =
      err instanceof SymlinkError ||
      err instanceof NotAFileError ||
      err instanceof MemoryInputError ||
      err instanceof MemoryPathError;
    if (bad) throw new UsageError(`${option}: ${err.message}`);
    throw err;
  }
}
