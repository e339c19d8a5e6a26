import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createLlmStrategy, emptyAgentStats } from "../agent/llm-strategy.js";
import type { ChatModel, ChatRequest, ChatResponse } from "../agent/types.js";
import type { MomentKind } from "../config/run-settings.js";
import { Broker } from "../engine/broker.js";
import { calendarFlagsAt, dayKey, isIntraday, timeLabel } from "../engine/calendar.js";
import { UsageError } from "../errors/run-errors.js";
import { DEFAULT_MEMORY_SYSTEM, memorySystemEntry } from "../memory/memory-registry.js";
import { DEFAULT_MEMORY_POLICY } from "../memory/policy/memory-policy.js";
import { PolicyLayer } from "../memory/policy/policy-layer.js";
import { PolicyState } from "../memory/policy/policy-state.js";
import { MemoryWorkspace, readMemoryCopy, readPreset } from "../memory/workspace.js";
import { resolveRunDir } from "../rundir/resolve-run.js";
import { RunRecall } from "../rundir/run-recall.js";
import { BacktestContext } from "../strategy/context.js";
import { type LoadedData, loadData } from "./load-data.js";
import { memoryPort } from "./memory-port.js";
import { llmPlaybook } from "./playbook.js";
import { llmStrategySettings, prepareLlmStrategy } from "./prepare-llm-strategy.js";
import type { RunConfig } from "./run-config.js";

// The first prompts a run of an LLM strategy would send, measured by building them with the
// agent's own code (its strategy, its memory system, the run's data at the window's first bar),
// without a model: the probe answers every call with a plain "hold" and sends nothing anywhere.

/** One request as it would be sent: its characters (messages and tools, as JSON). */
export interface MeasuredRequest {
  chars: number;
  request: ChatRequest;
}

/** What a run of `config` would send first, and how many turns its window holds. */
export interface FirstPrompts {
  /** The first trading decision's request. */
  decision: MeasuredRequest;
  /** The first memory turn's request (a day's end), or null: the run has no memory turns. */
  moment: MeasuredRequest | null;
  /** Bars of the window (after its history). */
  bars: number;
  /** Bars the agent is asked to decide at (every `--every`-th bar of the window). */
  decisions: number;
  /** Bars whose end has a calendar moment due (day, week, month, run end, per `--moments`):
   * each is one memory turn. 0 for a system without memory turns. */
  momentBars: number;
  /** Whether fills and closes prompt a memory turn too (`--moments` fill/close): they add turns
   * at bars with no calendar moment, which only the run's trades decide. */
  tradeMoments: boolean;
}

/** The characters of a request as the usage meter estimates its prompt (estimateUsage). */
export const requestChars = (r: ChatRequest) =>
  JSON.stringify(r.messages).length + JSON.stringify(r.tools ?? []).length;

/** A model that records each request and answers it with text and no tool call. */
class ProbeModel implements ChatModel {
  readonly requests: ChatRequest[] = [];
  async complete(request: ChatRequest): Promise<ChatResponse> {
    this.requests.push(structuredClone(request));
    return {
      message: { role: "assistant", content: "Hold.", refusal: null },
      finishReason: "stop",
      usage: { prompt: 0, completion: 0, cached: 0 },
      latencyMs: 0,
      attempts: 1,
      source: "replay",
      requestHash: "",
    };
  }
}

/** Calendar moments as the agent names them (`--moments`), and the engine's flags for them. */
const CALENDAR_MOMENTS: readonly MomentKind[] = ["eod", "week", "month", "run_end"];

/**
 * Builds the first decision's request (and the first memory turn's) of a run of `config`, in a
 * scratch directory that is removed after, and counts the window's decisions and memory turns
 * as the run's bar loop would.
 */
export async function measureFirstPrompts(
  config: RunConfig,
  /** The run's data, when the caller loaded it already (cells that share a window share it). */
  loaded: Pick<LoadedData, "data" | "startIndex"> = loadData(config),
): Promise<FirstPrompts> {
  const agent = config.agent;
  if (agent === null) throw new TypeError("measureFirstPrompts needs an LLM strategy's run");
  const { data, startIndex } = loaded;
  const llm = await prepareLlmStrategy(
    config.strategyPath,
    agent,
    config.strategySource ?? config.strategyPath,
  );
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-probe-"));
  try {
    // runs/<id> under the scratch dir: a persistent store opens beside it (memory/), empty, as
    // an experiment's run opens a namespace of its own.
    const dir = path.join(scratch, "runs", "probe");
    fs.mkdirSync(dir, { recursive: true });
    const workspace = new MemoryWorkspace({ dir, runId: "probe" });
    // Seeded as the run seeds it: --memory-from's files, then --preset's (a playbook among them).
    const from = config.memoryFrom;
    if (from)
      workspace.seed(
        seeds("--memory-from", () => readMemoryCopy(resolveRunDir(from, config.runsRoot))),
        "copied",
      );
    workspace.seed(
      config.presets.map((p) =>
        seeds(`--preset ${p.target}=${p.file}`, () => readPreset(p.target, p.file)),
      ),
      "preset",
    );
    workspace.init(llmPlaybook(llm.name, config.strategyPath));
    const policy = new PolicyState(
      dir,
      config.memoryPolicy?.policy ?? DEFAULT_MEMORY_POLICY,
      config.memoryPolicy?.overrides ?? {},
    );
    const recall = new RunRecall(dir, config.recall, null, {}, data.times, (t) => policy.at(t));
    const files = memoryPort(workspace, recall);
    const choice = config.memory ?? { system: DEFAULT_MEMORY_SYSTEM, config: null };
    const factory = await memorySystemEntry(choice.system).load();
    const memory = new PolicyLayer(
      factory.create({
        dir,
        runId: "probe",
        config: choice.config,
        barTimes: data.times,
        replayOf: null,
        files,
        fileStats: () => ({ ...workspace.stats() }),
        startIndex,
        policy,
        warn: () => {},
        embeddings: null,
      }),
      policy,
    );
    const intraday = isIntraday(data.times);
    const model = new ProbeModel();
    const settings = llmStrategySettings(llm.name, llm.prompt, agent, config.broker, null);
    const strategy = createLlmStrategy(settings, {
      stats: emptyAgentStats(),
      model,
      onResponse: () => {},
      checkBudget: () => {},
      timeLabelOf: (t) => timeLabel(t, intraday),
      startIndex,
      totalBars: data.times.length - startIndex,
      memory,
    });
    const ctx = new BacktestContext(data, new Broker(data, config.broker), {}, files);
    for (let i = 0; i <= startIndex; i++) ctx.advance(i);
    const state = strategy.init?.(ctx) as never;
    await strategy.onBar(ctx, state);
    const momentsOn = memory.tools.length > 0 && settings.moments.size > 0;
    const calendar = CALENDAR_MOMENTS.filter((k) => settings.moments.has(k));
    // The first memory turn: the hooks of a day's end (the moments it has on), then the bar's end.
    if (momentsOn) {
      if (settings.moments.has("eod")) await strategy.onDayEnd?.(ctx, dayKey(ctx.time), state);
      else if (settings.moments.has("week")) await strategy.onWeekEnd?.(ctx, "", state);
      else if (settings.moments.has("month")) await strategy.onMonthEnd?.(ctx, "", state);
      else if (settings.moments.has("run_end")) await strategy.onRunEnd?.(ctx, state);
      // Only fills and closes prompt (no calendar moment on): measured as a decision-sized turn.
      await strategy.onBarEnd?.(ctx, state);
    }
    memory.finish();
    recall.finish();
    const [decision, moment] = model.requests;
    if (decision === undefined) throw new Error("the probe's decision sent no request");
    const bars = data.times.length - startIndex;
    const flags = { dayEnd: false, weekEnd: false, monthEnd: false };
    let momentBars = 0;
    if (momentsOn && calendar.length > 0)
      for (let i = startIndex; i < data.times.length; i++) {
        const f = calendarFlagsAt(data.times, i, flags);
        const due =
          (f.dayEnd && settings.moments.has("eod")) ||
          (f.weekEnd && settings.moments.has("week")) ||
          (f.monthEnd && settings.moments.has("month")) ||
          (i === data.times.length - 1 && settings.moments.has("run_end"));
        if (due) momentBars++;
      }
    return {
      decision: { chars: requestChars(decision), request: decision },
      moment: !momentsOn
        ? null
        : moment
          ? { chars: requestChars(moment), request: moment }
          : { chars: requestChars(decision), request: decision },
      bars,
      decisions: Math.ceil(bars / settings.every),
      momentBars,
      tradeMoments: momentsOn && (settings.moments.has("fill") || settings.moments.has("close")),
    };
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** A memory source that cannot be read is bad input (exit code 2), named by its option. */
function seeds<T>(option: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw new UsageError(`${option}: ${(err as Error).message}`);
  }
}
