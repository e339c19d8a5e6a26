import path from "node:path";
import { normaliseBaseUrl } from "../agent/llm/llm-settings.js";
import { baseUrlOf } from "../config/base-url.js";
import { contextWindowOf, tokenPercentRule } from "../config/context-window.js";
import { AGENT_SETTINGS } from "../config/run-settings.js";
import { optionKey } from "../config/setting.js";
import { parseColumnMapping } from "../data/columns.js";
import { DATE_FORMAT_HELP, parseDateFormat } from "../data/date-format.js";
import { parseSymbolArg } from "../data/symbol-name.js";
import { UsageError } from "../errors/run-errors.js";
import {
  DEFAULT_MEMORY_SYSTEM,
  memorySystemEntry,
  memorySystemNames,
  parseMemorySystems,
  UnknownMemorySystemError,
} from "../memory/memory-registry.js";
import { validateNamespace } from "../memory/persistent/namespace.js";
import type { PolicyOverrides } from "../memory/policy/memory-policy.js";
import { PolicyError } from "../memory/policy/policy-errors.js";
import {
  POLICY_OVERRIDES_FILE,
  parsePolicyBlock,
  parsePolicyValues,
  type ResolvedPolicy,
  readOverridesFile,
  resolvePolicy,
} from "../memory/policy/policy-sources.js";
import { presetTarget } from "../memory/workspace.js";
import { rejectionWarning } from "../rundir/order-outcomes.js";
import { resolveRunDir } from "../rundir/resolve-run.js";
import { exitNow } from "../rundir/run-guard.js";
import type { AgentOptions } from "../runner/agent-options.js";
import { DataPreload } from "../runner/data-preload.js";
import { cacheFailureWarning } from "../runner/llm-cache-warning.js";
import { parseModelCutoff } from "../runner/model-cutoff.js";
import {
  PROJECT_CONFIG_FILE,
  type ProviderLimitValues,
  readMemoryConfig,
  readProviderLimits,
} from "../runner/project-config.js";
import { replayRunConfig } from "../runner/replay-config.js";
import { parseParamArgs } from "../runner/resolve-params.js";
import type { ResumePlan } from "../runner/resume-run.js";
import type { MemoryChoice, RunConfig } from "../runner/run-config.js";
import type { RunHandle } from "../runner/simulate.js";
import type { LiveRenderer } from "../ui/live-renderer.js";
import { lstatOrNull } from "../util/no-follow.js";
import { escapeControl, escapeStrings, jsonForTerminal } from "../util/terminal-text.js";
import { runsRootOf } from "./commands/runs-root.js";
import { formatRunError, relativeIfInside } from "./format-run-error.js";
import { formatSummary } from "./format-summary.js";
import { wantsLiveView } from "./live-view-choice.js";
import { chooseRenderer } from "./plain-renderer.js";
import { reportLocation } from "./report-location.js";
import { checkOutputSettings, type RunSettings, runSettingsOf } from "./run-option-values.js";
import { exitCodeOf, listenForStopSignals, type StopSignal } from "./stop-signals.js";

/** commander's options of `agenticbt run` (see run-options.ts); the ones read here by name. */
export interface RunCommandOptions {
  [option: string]: unknown;
  data?: string[];
  name?: string;
  runsDir?: string;
  json?: boolean;
  quiet?: boolean;
  /** `all`: the summary prints every metric in result.json, not only the headline ones. */
  metrics?: string;
  /** `--no-ui` sets false: plain progress lines even on a TTY. */
  ui?: boolean;
  replay?: string;
  /** `agenticbt resume <run>`: continue that run instead of starting one. */
  resume?: string;
  prompt?: string;
  anonymize?: boolean;
  modelCutoff?: string;
  /** `--memory files` or a comma list (one run per system, then a comparison). */
  memory?: string;
  /** `--memory-namespace`: the persistent store's namespace. */
  memoryNamespace?: string;
  /** `--policy-overrides <file.json>`: memory policy values over agenticbt.config.json's. */
  policyOverrides?: string;
  /** `--policy-from <run>`: that run's policy_overrides.json (its evolved policy) carried over. */
  policyFrom?: string;
  /** Policy values over all the others: an experiment cell's policy axes (`--grid <key>=…`). */
  policyValues?: Record<string, unknown>;
}

/** Whether a strategy argument (or --prompt) means an LLM trader rather than code. */
export function isLlmStrategy(strategy: string | undefined, o: RunCommandOptions): boolean {
  return (
    o.prompt !== undefined || (strategy !== undefined && /\.(md|markdown|txt)$/i.test(strategy))
  );
}

/** The agent's settings as checked, with the paths and dates they name resolved. */
function agentOptions(agent: AgentOptions): AgentOptions {
  return {
    ...agent,
    cacheDir: agent.cacheDir === null ? null : path.resolve(agent.cacheDir),
    modelCutoff: agent.modelCutoff === null ? null : parseModelCutoff(agent.modelCutoff),
  };
}

/** Turns command-line options into a resolved run config, refusing bad values (exit code 2). */
export function buildRunConfig(strategy: string | undefined, o: RunCommandOptions): RunConfig {
  if (strategy === undefined && o.prompt === undefined) {
    throw new UsageError(
      'No strategy: pass a strategy file (strategies/<name>.ts or .md) or --prompt "…".',
    );
  }
  if (o.prompt !== undefined && o.prompt.trim() === "") {
    throw new UsageError(
      '--prompt is empty: write the strategy in it (--prompt "Buy when RSI(14) < 30…"), or pass a strategies/<name>.md file.',
    );
  }
  if ((o.anonymize || o.modelCutoff !== undefined) && !isLlmStrategy(strategy, o)) {
    throw new UsageError(
      `${o.anonymize ? "--anonymize" : "--model-cutoff"} is for LLM strategies (a .md file or --prompt): a code strategy does not remember history.`,
    );
  }
  if (!o.data || o.data.length === 0) {
    throw new UsageError(
      "No data: pass --data <csv> (several files, or SYM=path, for several symbols).",
    );
  }
  const s = runSettingsOf(o);
  return {
    strategyPath: strategy ?? "(--prompt)",
    data: o.data.map((arg) => {
      const { symbol, file } = parseSymbolArg(arg);
      return symbol ? { file, symbol } : { file };
    }),
    broker: s.broker,
    params: parseParamArgs(s.data.param ?? []),
    from: s.data.from,
    to: s.data.to,
    name: s.run.name,
    runsRoot: runsRootOf(s.run.runsDir),
    strict: s.data.strict,
    tz: s.data.tz,
    ...dataFormatOptions(s.data),
    agent: isLlmStrategy(strategy, o) ? agentOptions(withProviderLimits(s.agent, o)) : null,
    presets: (s.run.preset ?? []).map(parsePreset),
    memoryFrom: s.memory.memoryFrom,
    recall: s.recall,
    ...(s.run.checkpointEvery === null ? {} : { checkpointEvery: s.run.checkpointEvery }),
    // Absent, the runner's default applies (see hookTimeoutOf).
    ...(s.run.hookTimeout === null ? {} : { hookTimeoutMs: Math.round(s.run.hookTimeout * 1000) }),
    ...memorySettings(o, isLlmStrategy(strategy, o) ? s.agent : null),
  };
}

/**
 * The limits agenticbt.config.json's `providers` gives the run's provider (the first entry whose
 * baseURL and model match), under the flags given on the command line.
 */
function withProviderLimits(agent: AgentOptions, o: RunCommandOptions): AgentOptions {
  const entries = readProviderLimits();
  if (entries.length === 0) return agent;
  const baseURL = normaliseBaseUrl(baseUrlOf(agent.baseURL, process.env));
  const entry = entries.find(
    (e) =>
      (e.baseURL === null || normaliseBaseUrl(e.baseURL) === baseURL) &&
      (e.model === null || e.model === agent.model),
  );
  if (entry === undefined) return agent;
  const given = o as Readonly<Record<string, unknown>>;
  const out: AgentOptions = { ...agent };
  for (const [key, value] of Object.entries(entry.limits) as [keyof ProviderLimitValues, number][])
    if (given[optionKey(AGENT_SETTINGS[key].flag ?? "")] === undefined) out[key] = value;
  return out;
}

/** The run's memory system and policy, from one read of agenticbt.config.json's memory block. */
function memorySettings(
  o: RunCommandOptions,
  agent: AgentOptions | null,
): Pick<RunConfig, "memory" | "memoryPolicy"> {
  const system = memorySystemsOf(o)[0] ?? DEFAULT_MEMORY_SYSTEM;
  const memoryBlock = readMemoryConfig();
  const memoryPolicy = memoryPolicyOf(o, memoryBlock);
  // An LLM run records the window its token-percent rule uses, or why the rule does not apply.
  if (agent !== null) {
    const window = contextWindowOf(agent.model, agent.contextWindow);
    memoryPolicy.contextWindow = window;
    memoryPolicy.tokenPercentRule = tokenPercentRule(
      window,
      memoryPolicy.policy.session_summary_token_percent,
      agent.model,
    );
  }
  return { memory: memoryChoice(system, o, memoryBlock), memoryPolicy };
}

/**
 * The memory policy (docs/memory-policy.md): the policy keys of agenticbt.config.json's `memory`
 * block, then `--policy-overrides`. Every value is checked and an unknown key named (exit 2, before
 * a run directory exists).
 */
export function memoryPolicyOf(
  o: RunCommandOptions,
  memoryBlock: Record<string, unknown> = readMemoryConfig(),
): ResolvedPolicy {
  try {
    const config = parsePolicyBlock(memoryBlock, PROJECT_CONFIG_FILE, memorySystemNames());
    const overridesFile = o.policyOverrides ?? null;
    // --policy-from first, --policy-overrides over it: the file is the user's last word.
    const from = o.policyFrom === undefined ? {} : carriedPolicy(o.policyFrom, o.runsDir);
    const overrides = {
      ...from,
      ...(overridesFile === null ? {} : readOverridesFile(overridesFile)),
      ...(o.policyValues === undefined ? {} : parsePolicyValues(o.policyValues, "--grid")),
    };
    return {
      policy: resolvePolicy(config, overrides),
      config,
      configFile: Object.keys(config).length > 0 ? PROJECT_CONFIG_FILE : null,
      overrides,
      overridesFile,
      ...(o.policyFrom === undefined ? {} : { policyFrom: o.policyFrom }),
    };
  } catch (err) {
    if (err instanceof PolicyError) throw new UsageError(err.message);
    throw err;
  }
}

/**
 * `--policy-from <run>`: the policy overrides that run ended with (its policy_overrides.json:
 * `--policy-overrides`, then evolution's accepted changes or a rollback), as the seed's new process
 * reads its workspace's overrides. A run without the file had none: nothing is carried.
 */
function carriedPolicy(run: string, runsDir: string | undefined): PolicyOverrides {
  const dir = resolveRunDir(run, runsRootOf(runsDir));
  const file = path.join(dir, POLICY_OVERRIDES_FILE);
  return lstatOrNull(file) === null ? {} : readOverridesFile(file);
}

/** `--memory`'s names (default files); an unknown one lists the registered systems (exit 2). */
export function memorySystemsOf(o: RunCommandOptions): string[] {
  if (o.memory === undefined) return [DEFAULT_MEMORY_SYSTEM];
  try {
    return parseMemorySystems(o.memory);
  } catch (err) {
    if (err instanceof UnknownMemorySystemError) throw new UsageError(err.message);
    throw err;
  }
}

/** A system with its config from agenticbt.config.json (`memory.<name>`), resolved and checked.
 * `memoryBlock`: that file's `memory` block, when the caller has read it already. */
export function memoryChoice(
  system: string,
  o: RunCommandOptions = {},
  memoryBlock: Record<string, unknown> = readMemoryConfig(),
): MemoryChoice {
  const factory = memorySystemEntry(system);
  let raw = memoryBlock[system];
  if (o.memoryNamespace !== undefined) {
    if (!(o.memory ?? "").split(",").some((n) => n.trim() === "persistent")) {
      throw new UsageError(
        "--memory-namespace names a persistent-memory store: use it with --memory persistent.",
      );
    }
    try {
      validateNamespace(o.memoryNamespace);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    if (system === "persistent") {
      const block = typeof raw === "object" && raw !== null ? raw : {};
      raw = { ...block, namespace: o.memoryNamespace };
    }
  }
  try {
    return { system, config: factory.resolveConfig ? factory.resolveConfig(raw) : (raw ?? null) };
  } catch (err) {
    throw new UsageError(`${PROJECT_CONFIG_FILE} memory.${system}: ${(err as Error).message}`);
  }
}

/** `--date-format` and `--columns` read, before any file is (exit 2). */
function dataFormatOptions(
  d: RunSettings["data"],
): Pick<RunConfig, "timeUnit" | "dateFormat" | "columns"> {
  const out: Pick<RunConfig, "timeUnit" | "dateFormat" | "columns"> = {};
  if (d.timeUnit !== undefined) out.timeUnit = d.timeUnit;
  if (d.dateFormat !== null) {
    if (parseDateFormat(d.dateFormat) === null) {
      throw new UsageError(
        `--date-format ${JSON.stringify(d.dateFormat)} is not a date format. Use ${DATE_FORMAT_HELP}.`,
      );
    }
    out.dateFormat = d.dateFormat;
  }
  if (d.columns !== null) out.columns = parseColumnMapping(d.columns);
  return out;
}

function parsePreset(arg: string): { target: string; file: string } {
  const eq = arg.indexOf("=");
  if (eq <= 0 || eq === arg.length - 1) {
    throw new UsageError(
      `--preset ${JSON.stringify(arg)} must look like notes/<key>.md=path/to/file.md.`,
    );
  }
  const target = arg.slice(0, eq);
  try {
    presetTarget(target);
  } catch (err) {
    // Checked here, before a run directory exists: a bad target is bad usage, not a failed run.
    throw new UsageError(`--preset ${JSON.stringify(arg)}: ${(err as Error).message}`);
  }
  return { target, file: arg.slice(eq + 1) };
}

/**
 * `agenticbt run`: returns the process exit code. `view`: the live view, already starting (the
 * CLI starts it as soon as the options say there is one, while this module and the run's load);
 * the first run draws on it and closes it. Without one, each run starts its own if it wants one.
 */
export async function runCommand(
  strategy: string | undefined,
  o: RunCommandOptions,
  view: LiveRenderer | null = null,
  beforeRun: { remove(): void } | null = null,
): Promise<number> {
  if (o.replay && o.memory !== undefined) {
    throw new UsageError(
      "--replay re-runs the recorded run with its own memory system: drop --memory.",
    );
  }
  checkOutputSettings(o);
  if (o.resume) {
    const { planResume } = await import("../runner/resume-run.js");
    const resume = planResume(o.resume, runsRootOf(o.runsDir));
    return (await runOne(resume.config, o, o.json === true, resume, view, beforeRun)).code;
  }
  if (o.replay)
    return (await runOne(replayConfig(o), o, o.json === true, null, view, beforeRun)).code;
  const systems = memorySystemsOf(o);
  if (systems.length === 1)
    return (await runOne(buildRunConfig(strategy, o), o, o.json === true, null, view, beforeRun))
      .code;
  return runEachMemorySystem(strategy, o, systems, view, beforeRun);
}

/**
 * `run … --memory a,b,c`: one run per system over the same data and settings, one after the
 * other, then the comparison (`compare`'s table, or its JSON with --json). Every config is built
 * (and checked) before the first run starts.
 */
async function runEachMemorySystem(
  strategy: string | undefined,
  o: RunCommandOptions,
  systems: string[],
  view: LiveRenderer | null,
  beforeRun: { remove(): void } | null,
): Promise<number> {
  const base = buildRunConfig(strategy, o);
  const memoryBlock = readMemoryConfig();
  const stem =
    o.name ??
    (base.agent?.prompt != null
      ? "prompt"
      : path.basename(base.strategyPath).replace(/\.[^.]+$/, ""));
  const configs = systems.map((system) => ({
    ...base,
    name: `${stem}-${system}`,
    memory: memoryChoice(system, o, memoryBlock),
  }));
  const dirs: string[] = [];
  let code = 0;
  for (const [k, config] of configs.entries()) {
    // The view started by the CLI is the first run's; each next run starts its own.
    const one = await runOne(config, o, false, null, k === 0 ? view : null, beforeRun);
    dirs.push(one.runDir);
    if (one.code !== 0) code = one.code;
    // Ctrl-C (or a signal) ends the series, not only the run under way.
    if (one.status === "interrupted") return code;
  }
  const [{ compareRuns }, { formatCompare }] = await Promise.all([
    import("../report/compare-runs.js"),
    import("./commands/format-compare.js"),
  ]);
  const comparison = compareRuns(dirs);
  if (o.json) process.stdout.write(`${jsonForTerminal(comparison)}\n`);
  else process.stdout.write(`\n${escapeControl(formatCompare(escapeStrings(comparison)))}\n`);
  return code;
}

/** One backtest with its progress view and summary (`json`: result.json alone on stdout). */
async function runOne(
  config: RunConfig,
  o: RunCommandOptions,
  json: boolean,
  resume: ResumePlan | null = null,
  view: LiveRenderer | null = null,
  beforeRun: { remove(): void } | null = null,
): Promise<{ code: number; runDir: string; status: string }> {
  // A long file is parsed by a worker thread from now on, while this one loads the runner.
  const preload = DataPreload.start(config);
  // The view the CLI started shows the load's progress while the runner's modules load.
  if (view && preload) {
    preload.onLoading(view.onEvent);
    view.loadingLine(preload.loadingLine());
  }
  let handle: RunHandle | null = null;
  let live: LiveRenderer | null = view;
  const onSignal = (signal: StopSignal) => {
    const second = stopSignals.again();
    if (second || handle === null) {
      // Nothing to finish yet (no run directory), or asked twice: exit now. A run directory's
      // result.json is written `interrupted` first, synchronously.
      handle?.abort?.(signal);
      // The view draws nothing more, and the worker's loading line goes (only `view` is ever
      // handed it, and `live` is `view` then): the shell's prompt starts on a clean line.
      live?.kill();
      exitNow(exitCodeOf(signal));
    }
    // SIGHUP: the terminal that would show the notice is gone.
    if (signal !== "SIGHUP") {
      const notice =
        signal === "SIGINT"
          ? "Interrupted: finishing the current bar and writing the run (Ctrl-C again to abort)."
          : `Interrupted by ${signal}: finishing the current bar and writing the run (${signal} again to abort).`;
      // On the live view a write to the terminal would tear its frame: the notice goes into it.
      if (live) live.notice(notice);
      else process.stderr.write(`\n${notice}\n`);
    }
    handle?.interrupt();
  };
  // From before the runner's modules load: a stop signal while a big file loads ends it cleanly.
  const stopSignals = listenForStopSignals(onSignal);
  // The CLI's listeners from before this module loaded (early-loading.ts) give way to these.
  beforeRun?.remove();
  const [{ runBacktest }] = await Promise.all([
    import("../runner/run-backtest.js"),
    preloadRunModules(config),
  ]);
  live ??= wantsLiveView(o, process.stdout, process.env)
    ? (await import("../ui/live-renderer.js")).liveRenderer()
    : null;
  live?.budget(
    config.agent && { maxCostUsd: config.agent.maxCost, maxTokens: config.agent.maxTokens },
  );
  const render = live
    ? live.onEvent
    : chooseRenderer({
        quiet: o.quiet === true,
        json: o.json === true,
        ui: o.ui !== false,
        stream: process.stderr,
      });
  if (!view) preload?.onLoading(render);
  try {
    const result = await runBacktest(config, {
      onEvent: render,
      onStart: (h) => {
        handle = h;
      },
      ...(resume ? { resume } : {}),
      preload,
    });
    // The final frame stays on screen; the summary follows below it.
    await live?.close();
    const runDir = path.join(config.runsRoot, result.id);
    // The error first (stderr, even with --json): it is what the user has to act on.
    const error = formatRunError(result, runDir);
    if (error !== null) process.stderr.write(escapeControl(error));
    const report = reportLocation(runDir, result.id);
    if (json) {
      process.stdout.write(`${jsonForTerminal(result)}\n`);
    } else if (!o.json) {
      process.stdout.write(
        escapeControl(
          `${formatSummary(escapeStrings(result), { allMetrics: o.metrics === "all" })}\n\nRun ${result.id}\n${relativeIfInside(runDir) || "."}\n${report}\n`,
        ),
      );
    }
    // With --json stdout is result.json's alone: where the page is goes to stderr.
    if (o.json && o.quiet !== true) process.stderr.write(escapeControl(`${report}\n`));
    // Loud, and even with --json or --quiet: rejected orders change what the numbers mean (the
    // error above already carries them when every order was rejected).
    const rejections = rejectionWarning(result.orders);
    if (rejections !== null && result.error?.type !== "AllOrdersRejected")
      process.stderr.write(escapeControl(`\nWARNING: ${rejections}\n`));
    // Loud too: answers not cached are paid for again by the next run.
    const cacheWarning = cacheFailureWarning(result.llm);
    if (cacheWarning !== null) process.stderr.write(escapeControl(`\nWARNING: ${cacheWarning}\n`));
    // A resume that could not re-derive its checkpoint is refused input, not a failed backtest.
    const code =
      result.error?.type === "resume_divergence" ? 2 : result.status === "completed" ? 0 : 1;
    return { code, runDir, status: result.status };
  } finally {
    await live?.close();
    stopSignals.remove();
  }
}

/**
 * The modules a run imports after its strategy (its memory system, report.html's) load beside
 * the runner's, before the run starts: once a `.ts` strategy is loaded, tsx's module hooks (on a
 * worker thread) stand in front of every later import, a round trip per module. Never rejects:
 * the runner imports each again where it needs it, and a failure is reported there as before.
 */
async function preloadRunModules(config: RunConfig): Promise<void> {
  let memory: Promise<unknown> = Promise.resolve();
  try {
    memory = memorySystemEntry(config.memory?.system ?? DEFAULT_MEMORY_SYSTEM).load();
  } catch {
    // An unknown system fails where the runner checks it.
  }
  await Promise.allSettled([
    memory,
    import("../report/html/write-report.js"),
    import("../report/html/report-model.js"),
  ]);
}

/** `--replay <run>`: the recorded run's own config, answered from its transcript. */
function replayConfig(o: RunCommandOptions): RunConfig {
  const runsRoot = runsRootOf(o.runsDir);
  return replayRunConfig(resolveRunDir(o.replay as string, runsRoot), runsRoot, o.name ?? null);
}
