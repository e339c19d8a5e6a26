import fs from "node:fs";
import path from "node:path";
import { QUEUE_SETTINGS } from "../config/queue-settings.js";
import { optionKey } from "../config/setting.js";
import { SWEEP_SETTINGS } from "../config/sweep-settings.js";
import { type LoadCsvOptions, loadCsv } from "../data/load-csv.js";
import { UsageError } from "../errors/usage-error.js";
import { POLICY_KEYS } from "../memory/policy/memory-policy.js";
import type { RunConfig } from "../runner/run-config.js";
import { type ExperimentCell, readExperimentConfig } from "../sweep/experiment/experiment-dir.js";
import type { ExperimentEstimate } from "../sweep/experiment/experiment-estimate.js";
import {
  cellLabel,
  type ExperimentAxis,
  type ExperimentWindow,
  experimentCells,
  parseWindows,
  rollingWindows,
} from "../sweep/experiment/experiment-plan.js";
import type { ExperimentSummary } from "../sweep/experiment/experiment-summary.js";
import {
  type ExperimentEvents,
  type NewExperiment,
  type RemoteRuns,
  replaySpec,
  resumeExperiment,
  runNewExperiment,
} from "../sweep/experiment/run-experiment.js";
import { parseGridValues, splitGridArg } from "../sweep/grid-values.js";
import { sweepsRootOf } from "../sweep/sweep-layout.js";
import { escapeControl, escapeStrings, jsonForTerminal } from "../util/terminal-text.js";
import { runsRootOf } from "./commands/runs-root.js";
import { experimentRenderer } from "./experiment-progress.js";
import { formatExperimentSummary } from "./format-experiment.js";
import { relativeIfInside } from "./format-run-error.js";
import { wantsLiveView } from "./live-view-choice.js";
import { buildRunConfig, isLlmStrategy, type RunCommandOptions } from "./run-command.js";
import { checkOutputSettings, settingValuesOf } from "./run-option-values.js";
import { runOptions } from "./run-options.js";
import { exitCodeOf, listenForStopSignals, type StopSignal } from "./stop-signals.js";

/** The axes that are not a flag of `run`: the strategy file of each cell. */
const STRATEGY_AXIS = "strategy";

const isPolicyKey = (name: string) => (POLICY_KEYS as readonly string[]).includes(name);

/** A policy axis's value as JSON would give it: a number, true/false, or the text. */
function policyValue(text: string): unknown {
  if (text === "true" || text === "false") return text === "true";
  const n = Number(text);
  return text.trim() !== "" && Number.isFinite(n) ? n : text;
}

/** Flags of the code sweep that mean nothing to an LLM experiment. */
const CODE_SWEEP_ONLY = ["constraint", "walkForward", "maxTries", "minimize"] as const;

/** `--grid name=values` of an experiment: `strategy`, or a run/agent flag without its `--`. */
function experimentAxes(args: readonly string[]): ExperimentAxis[] {
  const flags = new Map(runOptions().map((o) => [o.flag.replace(/^--/, ""), o.setting]));
  const axes: ExperimentAxis[] = [];
  for (const arg of args) {
    const { name, values } = splitGridArg(arg);
    if (name !== STRATEGY_AXIS && !flags.has(name) && !isPolicyKey(name))
      throw new UsageError(
        `--grid ${name}: an LLM experiment's axis is strategy, model, memory, a flag of agenticbt run without its -- (temperature, every, max-steps...) or a memory policy key (retrieve_limit, session_summary_keep_count...).`,
      );
    if (["data", "from", "to", "seed", "replay", "name", "runs-dir"].includes(name))
      throw new UsageError(
        `--grid ${name} is not an experiment axis: ${name === "from" || name === "to" ? "use --windows" : name === "seed" ? "use --repeats (each repeat has its own seed)" : "it is the same for every run"}.`,
      );
    if (axes.some((a) => a.name === name))
      throw new UsageError(`--grid ${name} is given twice: keep one.`);
    const g = parseGridValues(name, values);
    const list = g.kind === "range" ? g.numbers.map(String) : g.texts;
    if (new Set(list).size !== list.length)
      throw new UsageError(`--grid ${name}=${values} names a value twice: name each once.`);
    axes.push({ name, values: list });
  }
  return axes;
}

/** Each cell's run config, built (and checked) as `agenticbt run` builds one. */
function cellRuns(
  strategy: string | undefined,
  o: Record<string, unknown>,
  axes: readonly ExperimentAxis[],
): { settings: Record<string, string>; run: RunConfig }[] {
  const switches = new Set(
    runOptions()
      .filter((x) => x.setting.kind === "switch")
      .map((x) => x.flag.replace(/^--/, "")),
  );
  return experimentCells(axes).map((settings) => {
    const opts: Record<string, unknown> = { ...o };
    // The sweep's --seed draws repeats' seeds; the agent's seed is set per repeat.
    delete opts.seed;
    const policyValues: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(settings)) {
      if (name === STRATEGY_AXIS) continue;
      if (isPolicyKey(name)) policyValues[name] = policyValue(value);
      else opts[optionKey(`--${name}`)] = switches.has(name) ? value === "true" : value;
    }
    // Checked as --policy-overrides' values are, and recorded in each run's config.json.
    if (Object.keys(policyValues).length > 0) opts.policyValues = policyValues;
    const file = settings[STRATEGY_AXIS] ?? strategy;
    if (file === undefined)
      throw new UsageError(
        "No strategy: pass a strategy file (strategies/<name>.md) or --grid strategy=a.md,b.md.",
      );
    if (!isLlmStrategy(file, opts as RunCommandOptions))
      throw new UsageError(
        `${file} is a code strategy: an experiment's strategies are LLM ones (.md); sweep code strategies on their own.`,
      );
    return { settings, run: buildRunConfig(file, opts as RunCommandOptions) };
  });
}

/**
 * `--baseline strategies/x.ts`: a code strategy's cell, with the options every cell shares (no
 * axis value: it is the fixed yardstick) and none of the LLM-only ones.
 */
function codeBaselineCell(file: string, o: Record<string, unknown>): ExperimentCell {
  if (isLlmStrategy(file, {} as RunCommandOptions))
    throw new UsageError(
      `--baseline ${file} is an LLM strategy: the baseline is a code strategy (strategies/<name>.ts); compare LLM strategies with --grid strategy=a.md,b.md.`,
    );
  if (!fs.existsSync(file))
    throw new UsageError(
      `--baseline ${file}: no such file; pass a code strategy (strategies/<name>.ts).`,
    );
  const { seed: _seed, anonymize: _anonymize, modelCutoff: _cutoff, ...opts } = o;
  return {
    settings: { baseline: file },
    // Absolute: a resume or a replay may start from another directory.
    run: buildRunConfig(path.resolve(file), opts as RunCommandOptions),
    code: true,
  };
}

/** The first and last day of the first data file (rolling windows cover them). */
function dataSpan(run: RunConfig): { start: string; end: string } {
  const spec = run.data[0];
  if (spec === undefined) throw new UsageError("No data: pass --data <csv>.");
  const opts: LoadCsvOptions = { strict: run.strict };
  if (spec.symbol !== undefined) opts.symbol = spec.symbol;
  if (run.tz !== null) opts.tz = run.tz;
  if (run.timeUnit) opts.timeUnit = run.timeUnit;
  if (run.dateFormat) opts.dateFormat = run.dateFormat;
  if (run.columns) opts.columns = run.columns;
  const { time } = loadCsv(spec.file, opts).series;
  const day = (t: number | undefined) => new Date(t ?? 0).toISOString().slice(0, 10);
  return { start: day(time[0]), end: day(time[time.length - 1]) };
}

/** The experiment an argument names: a path, an id under the sweeps root, or a unique prefix. */
export function findExperimentDir(name: string, root: string): string | null {
  for (const c of [path.resolve(name), path.join(root, name)])
    if (readExperimentConfig(c) !== null) return c;
  if (!fs.existsSync(root)) return null;
  const ids = fs
    .readdirSync(root)
    .filter((d) => d.startsWith(name))
    .map((d) => path.join(root, d))
    .filter((d) => readExperimentConfig(d) !== null);
  return ids.length === 1 ? (ids[0] as string) : null;
}

const _pct = (v: number | null | undefined) =>
  v === null || v === undefined ? "n/a" : v.toFixed(2);

/** Progress on stderr (the live view on a terminal), signals, then the summary: shared by a
 * new, resumed or replayed one. */
async function withExperimentProgress(
  o: Record<string, unknown>,
  go: (events: ExperimentEvents) => Promise<{ dir: string; summary: ExperimentSummary }>,
  estimate: ExperimentEstimate | null = null,
): Promise<number> {
  const quiet = o.quiet === true || o.json === true;
  const render = quiet
    ? null
    : experimentRenderer(process.stderr, wantsLiveView(o, process.stderr, process.env));
  let handle: { stop(): void } | null = null;
  let signal: StopSignal | null = null;
  const signals = listenForStopSignals((s) => {
    if (signals.again()) process.exit(exitCodeOf(s));
    signal = s;
    const text = `Interrupted by ${s}: stopping the runs under way at their next bar (again to abort); agenticbt resume goes on from their checkpoints.`;
    if (render) render.notice(text);
    else process.stderr.write(`\n${text}\n`);
    handle?.stop();
  });
  try {
    const { dir, summary } = await go({
      onStart: (h) => {
        handle = h;
        if (signal !== null) h.stop();
      },
      onEvent: (e) => render?.onEvent(e),
    });
    render?.close();
    if (o.json === true)
      process.stdout.write(
        `${jsonForTerminal(estimate === null ? summary : { ...summary, estimate })}\n`,
      );
    else
      process.stdout.write(
        `${escapeControl(formatExperimentSummary(escapeStrings(summary), dir, process.stdout.isTTY ? (process.stdout.columns ?? null) : null))}\n`,
      );
    if (signal !== null) return exitCodeOf(signal);
    if (summary.status !== "completed") return 1;
    return summary.done > 0 && summary.failed === summary.done ? 1 : 0;
  } finally {
    render?.close();
    signals.remove();
  }
}

/** `agenticbt sweep <strategy.md> --grid …` (or `--replay <sweep>`): an LLM experiment. */
export async function experimentCommand(
  strategy: string | undefined,
  o: Record<string, unknown>,
): Promise<number> {
  checkOutputSettings(o);
  const s = settingValuesOf(SWEEP_SETTINGS, o);
  const root = sweepsRootOf(runsRootOf(o.runsDir as string | undefined));
  const name = typeof o.name === "string" ? o.name : null;
  let spec: NewExperiment;
  if (s.replay !== null) {
    if (strategy !== undefined || s.grid !== undefined || s.windows !== null || s.baseline !== null)
      throw new UsageError(
        "--replay re-runs the recorded experiment with its own strategies, grid, windows and baseline: drop the strategy, --grid, --windows and --baseline.",
      );
    const dir = findExperimentDir(s.replay, root);
    if (dir === null)
      throw new UsageError(
        `--replay ${s.replay} names no LLM experiment under ${relativeIfInside(root) || root}: pass its directory or id (agenticbt list shows them).`,
      );
    spec = replaySpec(dir, name);
  } else {
    for (const key of CODE_SWEEP_ONLY)
      if (o[key] !== undefined)
        throw new UsageError(
          `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} is for code sweeps: an LLM experiment runs every cell × window × repeat.`,
        );
    if (s.method !== "grid" || s.top !== 0)
      throw new UsageError(
        "--method random and --top are for code sweeps: an LLM experiment runs every cell × window × repeat, each a run directory.",
      );
    const axes = experimentAxes(s.grid ?? []);
    const cells: ExperimentCell[] = cellRuns(strategy, o, axes);
    if (s.baseline !== null) cells.push(codeBaselineCell(s.baseline, o));
    const first = cells[0]?.run as RunConfig;
    let windows: ExperimentWindow[];
    if (s.windows === null) {
      if (first.from === null || first.to === null)
        throw new UsageError(
          "An LLM experiment needs its windows: --windows 2012-01-01:2012-06-30,2012-07-01:2012-12-31 (or --from and --to for one).",
        );
      windows = [{ from: first.from, to: first.to }];
    } else if (s.windows.startsWith("rolling:")) {
      const span = dataSpan(first);
      windows = rollingWindows(s.windows, first.from ?? span.start, first.to ?? span.end);
    } else windows = parseWindows(s.windows);
    const stem = strategy ?? (cells[0]?.settings[STRATEGY_AXIS] as string);
    spec = {
      name: name ?? path.basename(stem).replace(/\.[^.]+$/, ""),
      axes,
      cells,
      windows,
      repeats: s.repeats,
      seed: s.seed,
      // `--concurrency N` means N runs in flight too (the provider's limiter still holds the
      // calls to N); --jobs, when given, sets the runs alone.
      jobs: s.jobs ?? (o.concurrency === undefined ? 1 : (first.agent?.concurrency ?? 1)),
      budgetUsd: s.budgetUsd,
      replayOf: null,
    };
  }
  // A replay makes no network call: nothing to estimate or confirm.
  let estimate: ExperimentEstimate | null = null;
  if (spec.replayOf === null) {
    const { probeExperiment } = await import("../sweep/experiment/experiment-estimate.js");
    const { confirmLaunch } = await import("./experiment-estimate-prompt.js");
    // A code baseline's runs make no model call: nothing of theirs to estimate.
    estimate = await probeExperiment(
      spec.cells
        .filter((c) => c.code !== true)
        .map((c) => ({ label: cellLabel(c.settings), run: c.run })),
      spec.windows,
      spec.repeats,
    );
    const flags = { yes: s.yes, json: o.json === true, quiet: o.quiet === true };
    if (!(await confirmLaunch(estimate, flags))) {
      process.stderr.write("Not started.\n");
      return 0;
    }
    // Kept in config.json, beside what the runs are billed.
    spec = { ...spec, estimate };
  }
  const { queue } = settingValuesOf(QUEUE_SETTINGS, o);
  const remote = await queueRunsOf(queue);
  // Kept in config.json: `agenticbt resume` goes on through the same queue.
  if (remote !== undefined) spec = { ...spec, queue: remote.shown };
  return withExperimentProgress(
    o,
    (events) => runNewExperiment(root, spec, remote ? { ...events, remote: remote.runs } : events),
    estimate,
  );
}

/** `--queue`: the queue's runs, loaded only then (no BullMQ otherwise). */
async function queueRunsOf(
  url: string | null,
): Promise<{ runs: RemoteRuns; shown: string } | undefined> {
  if (url === null) return undefined;
  const [{ queueRuns }, { redactedUrl }] = await Promise.all([
    import("../queue/queue-experiment.js"),
    import("../queue/connection.js"),
  ]);
  return { runs: queueRuns(url), shown: redactedUrl(url) };
}

/** `agenticbt resume <experiment>`. */
export async function resumeExperimentCommand(
  dir: string,
  o: Record<string, unknown>,
): Promise<number> {
  checkOutputSettings(o);
  // An experiment started with --queue goes on through its queue (--queue again when it has a
  // password).
  const { queue } = settingValuesOf(QUEUE_SETTINGS, o);
  const remote = await queueRunsOf(queue ?? readExperimentConfig(dir)?.queue ?? null);
  return withExperimentProgress(o, (events) =>
    resumeExperiment(dir, remote ? { ...events, remote: remote.runs } : events),
  );
}
