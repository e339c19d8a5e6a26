import path from "node:path";
import { QUEUE_SETTINGS } from "../config/queue-settings.js";
import { DEFAULT_CSCV_BLOCKS, SWEEP_SETTINGS } from "../config/sweep-settings.js";
import { UsageError } from "../errors/usage-error.js";
import { formatMetric } from "../metrics/metric-labels.js";
import { checkCscvBlocks } from "../metrics/overfitting/pbo.js";
import { parseWalkForward } from "../metrics/overfitting/walk-forward-windows.js";
import type { SweepHandle } from "../sweep/execute.js";
import { parseGridValues, splitGridArg } from "../sweep/grid-values.js";
import { checkObjective } from "../sweep/plan.js";
import {
  resumeSweep,
  runNewSweep,
  type SweepEvent,
  type SweepExecutor,
} from "../sweep/run-sweep.js";
import { readSweepConfig, type SweepSummaryFile } from "../sweep/sweep-dir.js";
import { sweepFile, sweepsRootOf } from "../sweep/sweep-layout.js";
import { escapeControl, escapeStrings, jsonForTerminal } from "../util/terminal-text.js";
import { relativeIfInside } from "./format-run-error.js";
import { wantsLiveView } from "./live-view-choice.js";
import { buildRunConfig, isLlmStrategy } from "./run-command.js";
import { checkOutputSettings, settingValuesOf } from "./run-option-values.js";
import { exitCodeOf, listenForStopSignals, type StopSignal } from "./stop-signals.js";
import { sweepRenderer } from "./sweep-progress.js";

/** The sweep's summary as the command prints it. */
export function formatSweepSummary(s: SweepSummaryFile, dir: string): string {
  const settings = (x: Readonly<Record<string, unknown>>) =>
    Object.entries(x)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(" ");
  const rate = s.timings.combinationsPerSecond;
  const lines = [
    `Sweep ${s.id} (${s.status}): ${s.done} of ${s.total} combinations, ${s.failed} failed, in ${(s.timings.sweepMs / 1000).toFixed(2)} s${rate !== null ? ` (${rate.toFixed(0)} combinations/s)` : ""}`,
  ];
  const metric = s.objective.metric;
  if (s.best) {
    lines.push(
      `Best ${metric} ${formatMetric(metric, s.best.value)} (${s.objective.direction}d): ${settings(s.best.settings)}`,
    );
    const m = s.best.metrics;
    lines.push(
      `  return ${formatMetric("returnPct", m.returnPct)}%  buy & hold ${formatMetric("buyHoldReturnPct", m.buyHoldReturnPct)}%  sharpe ${formatMetric("sharpe", m.sharpe)}  max drawdown ${formatMetric("maxDrawdownPct", m.maxDrawdownPct)}%  trades ${m.trades}`,
    );
  } else lines.push(`Best: none (no combination completed with a ${metric})`);
  lines.push(...statisticsLines(s));
  if (s.walkForward)
    lines.push(...walkForwardLines(s.walkForward, s.timings.walkForwardMs ?? null));
  for (const t of s.topRuns) lines.push(`Run ${t.runId}: combination ${t.index}`);
  lines.push(relativeIfInside(dir) || ".");
  lines.push(`Report ${relativeIfInside(sweepFile(dir, "report"))}`);
  return lines.join("\n");
}

const figureText = (f: { value: number | null; reason: string | null }, digits = 4) =>
  f.value === null ? `n/a (${f.reason})` : f.value.toFixed(digits);

/** The statistics of the search: one line of figures, then the reasons of those that are n/a. */
function statisticsLines(s: SweepSummaryFile): string[] {
  const st = s.statistics;
  const figures: [string, { value: number | null; reason: string | null }][] = [
    ["PSR", st.psr],
    ["DSR", st.dsr],
    [`PBO (${st.cscvBlocks ?? DEFAULT_CSCV_BLOCKS} blocks)`, st.pbo],
  ];
  const shown = figures
    .map(([name, f]) => `${name} ${f.value === null ? "n/a" : f.value.toFixed(3)}`)
    .join("  ");
  const lines = [`Trials ${st.trials}  ${shown}`];
  if (
    st.dsr.value !== null &&
    st.expectedMaxSharpe.value !== null &&
    st.bestSharpePerBar.value !== null
  )
    lines.push(
      `  best per-bar Sharpe ${st.bestSharpePerBar.value.toFixed(4)}; luck's best of ${st.sharpeTrials}: ${st.expectedMaxSharpe.value.toFixed(4)}`,
    );
  const reasons = new Map<string, string[]>();
  for (const [name, f] of figures)
    if (f.value === null)
      reasons.set(f.reason ?? "", [...(reasons.get(f.reason ?? "") ?? []), name]);
  for (const [reason, names] of reasons) lines.push(`  ${names.join(", ")} n/a: ${reason}`);
  return lines;
}

/** The walk-forward: a line per window, then the stitched out-of-sample figures. */
function walkForwardLines(
  wf: NonNullable<SweepSummaryFile["walkForward"]>,
  ms: number | null,
): string[] {
  const metric = wf.objective.metric;
  const settings = (x: Readonly<Record<string, unknown>> | undefined) =>
    x
      ? Object.entries(x)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join(" ")
      : "none";
  const value = (v: number | null | undefined) =>
    v === null || v === undefined ? "n/a" : formatMetric(metric, v);
  const lines = [
    `Walk-forward ${wf.spec}: ${wf.windows.length} windows${ms === null ? "" : ` in ${(ms / 1000).toFixed(2)} s`}`,
    `  by test span: the best in sample, its ${metric} in sample → out of sample`,
  ];
  for (const w of wf.windows)
    lines.push(
      `  ${String(w.window).padStart(2)}  test ${w.test.from} → ${w.test.to}  ${settings(w.best?.settings)}  ${value(w.best?.value)} → ${value(w.outOfSampleValue.value)}`,
    );
  const reasons = new Map<string, number[]>();
  for (const w of wf.windows)
    if (w.outOfSampleValue.value === null) {
      const why = w.outOfSampleValue.reason;
      reasons.set(why, [...(reasons.get(why) ?? []), w.window]);
    }
  for (const [why, windows] of reasons)
    lines.push(
      `  n/a out of sample in window${windows.length > 1 ? "s" : ""} ${windows.join(", ")}: ${why}`,
    );
  const st = wf.stitched;
  if (st === null) lines.push(`  Stitched out of sample: n/a (${wf.stitchedReason})`);
  else
    lines.push(
      `  Stitched out of sample ${st.start} → ${st.end}, ${st.bars} bars, ${st.trades} trades:`,
      `    return ${formatMetric("returnPct", st.returnPct)}%  buy & hold ${formatMetric("buyHoldReturnPct", st.buyHoldReturnPct)}%  sharpe ${formatMetric("sharpe", st.sharpe)}  max drawdown ${formatMetric("maxDrawdownPct", st.maxDrawdownPct)}%`,
    );
  lines.push(
    `  Mean ${metric} out of sample / in sample: ${figureText(wf.outOfSampleMean)} / ${figureText(wf.inSampleMean)} = ${figureText(wf.ratio, 2)}`,
  );
  return lines;
}

/** 0, or 1 when every combination failed or the sweep stopped before its end. */
function exitCode(s: SweepSummaryFile, signal: StopSignal | null): number {
  if (signal !== null) return exitCodeOf(signal);
  if (s.status !== "completed") return 1;
  return s.done > 0 && s.failed === s.done ? 1 : 0;
}

/** Progress, signals and the summary around a sweep, new or resumed. */
async function withProgress(
  o: Record<string, unknown>,
  go: (events: {
    onEvent: (e: SweepEvent) => void;
    onStart: (h: SweepHandle) => void;
    execute?: SweepExecutor;
  }) => Promise<{ dir: string; summary: SweepSummaryFile }>,
): Promise<number> {
  const quiet = o.quiet === true || o.json === true;
  const live = wantsLiveView(o, process.stderr, process.env);
  const render = quiet ? null : sweepRenderer(process.stderr, live);
  let handle: SweepHandle | null = null;
  let signal: StopSignal | null = null;
  const signals = listenForStopSignals((s) => {
    if (signals.again()) process.exit(exitCodeOf(s));
    signal = s;
    process.stderr.write(
      `\nInterrupted by ${s}: finishing the combinations under way (again to abort); agenticbt resume goes on.\n`,
    );
    handle?.stop();
  });
  try {
    const { dir, summary } = await go({
      onEvent: (e) => render?.onEvent(e),
      onStart: (h) => {
        handle = h;
        if (signal !== null) h.stop();
      },
    });
    render?.close();
    if (o.json === true) process.stdout.write(`${jsonForTerminal(summary)}\n`);
    else
      process.stdout.write(`${escapeControl(formatSweepSummary(escapeStrings(summary), dir))}\n`);
    return exitCode(summary, signal);
  } finally {
    render?.close();
    signals.remove();
  }
}

/** `agenticbt sweep <strategy> --grid …`: returns the exit code. */
export async function sweepCommand(
  strategy: string | undefined,
  o: Record<string, unknown>,
): Promise<number> {
  // An LLM strategy, a strategy axis or a replay: an experiment, each run a run directory.
  const grid = (o.grid as string[] | undefined) ?? [];
  if (
    o.replay !== undefined ||
    (strategy !== undefined && isLlmStrategy(strategy, o)) ||
    (strategy === undefined && grid.some((g) => g.trim().startsWith("strategy=")))
  ) {
    const { experimentCommand } = await import("./experiment-command.js");
    return experimentCommand(strategy, o);
  }
  if (strategy === undefined)
    throw new UsageError(
      "No strategy: pass a strategy file (strategies/<name>.ts for a code sweep, strategies/<name>.md for an LLM experiment).",
    );
  for (const [key, flag] of [
    ["windows", "--windows"],
    ["budgetUsd", "--budget-usd"],
    ["baseline", "--baseline"],
  ] as const)
    if (o[key] !== undefined)
      throw new UsageError(
        `${flag} is for LLM experiments (a .md strategy): a code sweep runs its grid on the --from..--to window.`,
      );
  checkOutputSettings(o);
  const s = settingValuesOf(SWEEP_SETTINGS, o);
  if (o.maximize !== undefined && o.minimize !== undefined)
    throw new UsageError("--maximize and --minimize both given: keep one.");
  const objective = checkObjective(s.maximize, s.minimize);
  const axes = (s.grid ?? []).map((arg) => {
    const { name, values } = splitGridArg(arg);
    const g = parseGridValues(name, values);
    return { name, values: g.kind === "range" ? g.numbers : g.texts };
  });
  const seen = new Set<string>();
  for (const g of axes) {
    if (seen.has(g.name)) throw new UsageError(`--grid ${g.name} is given twice: keep one.`);
    seen.add(g.name);
  }
  checkCscvBlocks(s.cscvBlocks);
  if (s.walkForward !== null) parseWalkForward(s.walkForward);
  if (s.method === "random" && s.maxTries === null)
    throw new UsageError("--method random needs --max-tries <n>: how many combinations to draw.");
  const run = buildRunConfig(strategy, o);
  const name = run.name ?? path.basename(strategy).replace(/\.[^.]+$/, "");
  const root = sweepsRootOf(run.runsRoot);
  const { queue } = settingValuesOf(QUEUE_SETTINGS, o);
  const execute = queue === null ? undefined : await queueExecutorOf(queue);
  return withProgress(o, (events) =>
    runNewSweep(
      root,
      {
        name,
        run,
        search: {
          grid: axes,
          constraint: s.constraint,
          objective,
          method: s.method,
          maxTries: s.maxTries,
          seed: s.seed,
        },
        jobs: s.jobs,
        top: s.top,
        cscvBlocks: s.cscvBlocks,
        walkForward: s.walkForward,
        ...(queue !== null ? { queue: execute?.shown ?? queue } : {}),
      },
      execute ? { ...events, execute: execute.executor } : events,
    ),
  );
}

/** The queue's executor, loaded only when --queue is given (no BullMQ otherwise). */
async function queueExecutorOf(url: string): Promise<{ executor: SweepExecutor; shown: string }> {
  const [{ queueExecutor }, { redactedUrl }] = await Promise.all([
    import("../queue/queue-sweep.js"),
    import("../queue/connection.js"),
  ]);
  return { executor: queueExecutor(url), shown: redactedUrl(url) };
}

/** `agenticbt resume <sweep>`: the combinations a stopped or killed sweep lacks. */
export async function resumeSweepCommand(dir: string, o: Record<string, unknown>): Promise<number> {
  checkOutputSettings(o);
  // A sweep started with --queue goes on through its queue (--queue again when it has a password).
  const { queue } = settingValuesOf(QUEUE_SETTINGS, o);
  const url = queue ?? readSweepConfig(dir)?.queue ?? null;
  const execute = url === null ? undefined : await queueExecutorOf(url);
  return withProgress(o, (events) =>
    resumeSweep(dir, execute ? { ...events, execute: execute.executor } : events),
  );
}
