import { createHash } from "node:crypto";
import { isoWeekKey, monthKey } from "../engine/calendar.js";
import type { ClosedTrade, Fill } from "../engine/types.js";
import type { MemorySection, MemorySystem, SessionRules } from "../memory/memory-system.js";
import type { OrderUpdate, Strategy, StrategyContext } from "../strategy/types.js";
import type { AgentEventListener, DecisionStartedEvent } from "./agent-events.js";
import { BacktestToolHost } from "./backtest-tool-host.js";
import { money, price } from "./context/format-numbers.js";
import { buildStablePrefix } from "./context/stable-prefix.js";
import { buildVolatileContext } from "./context/volatile-context.js";
import { isFailedTurn } from "./failed-turn.js";
import {
  DECISION_REQUEST,
  MOMENT_PREAMBLE,
  MOMENT_PROMPTS,
  type MomentKind,
  systemRules,
  toolGuide,
} from "./prompts.js";
import { RATIONALE_CLIP_CHARS, recordedRationale } from "./rationale.js";
import { textToolCallFix } from "./text-tool-calls.js";
import {
  BudgetExhaustedError,
  type LoopOptions,
  type LoopOutcome,
  runToolLoop,
} from "./tool-loop.js";
import { agentTools } from "./tools/all-tools.js";
import {
  type ChatCompletionMessageParam,
  type ChatModel,
  type ChatResponse,
  FATAL_FAILURES,
} from "./types.js";
import type { WorkspaceState } from "./workspace-state.js";

export interface LlmStrategySettings {
  name: string;
  /** The strategy prompt (the .md file's text, or --prompt). */
  prompt: string;
  model: string;
  temperature?: number;
  seed?: number;
  /** Max output tokens per call. */
  maxOutputTokens?: number;
  /** The model's context window in tokens (--context-window, else the model table); absent or
   * null: unknown, so the memory policy's token-percent rule does not apply. */
  contextWindow?: number | null;
  /** Model calls per decision (the tool loop's hard bound). */
  maxSteps: number;
  /** Failed decisions in a row that fail the run (--max-failed-decisions). */
  maxFailedDecisions: number;
  /** Decide every N bars (1 = every bar). */
  every: number;
  /** Bars of each symbol shown in the context. */
  contextBars: number;
  moments: ReadonlySet<MomentKind>;
  /** One line on costs and permissions for the system prompt. */
  tradingTerms: string;
}

/** Counts for result.json: every failed decision and tool call by type, never silently a hold. */
export interface AgentStats {
  decisions: number;
  /** Decisions that ended in a failure (a model call that failed for good, an empty reply). */
  failedDecisions: number;
  moments: number;
  skippedBars: number;
  toolCalls: number;
  /** Turns that ended abnormally, by type (max_steps, timeout, rate_limit, budget_exhausted…). */
  turnErrors: Record<string, number>;
  /** Tool calls that failed, by type (malformed_json, unknown_tool, invalid_arguments, tool_error,
   * call_limit). */
  toolErrors: Record<string, number>;
}

export function emptyAgentStats(): AgentStats {
  return {
    decisions: 0,
    failedDecisions: 0,
    moments: 0,
    skippedBars: 0,
    toolCalls: 0,
    turnErrors: {},
    toolErrors: {},
  };
}

export interface LlmStrategyDeps {
  stats: AgentStats;
  model: ChatModel;
  /** Usage accounting; sees every answer. */
  onResponse: (response: ChatResponse) => void;
  /** Throws BudgetExhaustedError when the run's budget is spent. */
  checkBudget: () => void;
  timeLabelOf: (time: number) => string;
  /** Master index of the first simulated bar and the number of simulated bars. */
  startIndex: number;
  totalBars: number;
  /** Decisions as they start and end (the run's live events). */
  onEvent?: AgentEventListener;
  /** The run's memory system (`--memory`): its rules, tools and context sections. */
  memory: MemorySystem;
  /** Something about the model's answers the user should know now (said once per kind). */
  onWarning?: (message: string) => void;
  /** What the decisions did with tools, for the end-of-run warning (agentEndWarning). */
  toolUse?: ToolUse;
  /** The run's tool-call counts, told the model when a turn is compacted (--workspace-state). */
  state?: WorkspaceState;
}

/** How the decisions used tools: an agent that never called one did nothing at all. */
export interface ToolUse {
  /** Decisions that called at least one tool. */
  decisionsWithTools: number;
  /** Tool calls the server returned as text, read by the loop. */
  textToolCalls: number;
}

export function emptyToolUse(): ToolUse {
  return { decisionsWithTools: 0, textToolCalls: 0 };
}

/**
 * A run whose agent answered but never called a tool placed no order and wrote no memory: worth a
 * warning, since the likely cause is a server that dropped the tool calls (or a model without
 * tool support), not a trader who chose to wait every single time.
 */
export function agentEndWarning(stats: AgentStats, use: ToolUse): string | null {
  const answered = stats.decisions - stats.failedDecisions;
  if (answered <= 0 || use.decisionsWithTools > 0) return null;
  return (
    `The agent called no tool in any of its ${stats.decisions} decisions: it never looked at data, ` +
    "placed an order or wrote memory. If its rationales in decisions.jsonl hold tool calls as " +
    "text, turn on the server's tool-call parser (docs/llm-traders.md lists the options per " +
    "server); otherwise check that the model supports tool calling."
  );
}

interface AgentState {
  /** What happened since the last decision, as lines for the context. */
  events: string[];
  /** What happened since the last memory moment. */
  momentEvents: string[];
  due: Set<MomentKind>;
}

/** Ends the run as `failed`: `type` goes to result.json's error (auth, max_failed_decisions…). */
export class AgentRunError extends Error {
  override readonly name = "AgentRunError";
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** Why a run that reached its end must still not be `completed`: the agent never decided. */
export function neverDecided(stats: AgentStats): { type: string; message: string } | null {
  const asText = stats.turnErrors.tool_call_as_text ?? 0;
  if (asText * 2 > stats.decisions) {
    return {
      type: "tool_call_as_text",
      message: `${asText} of the ${stats.decisions} decisions wrote their tool calls as text that could not be read, so the agent could not act. ${textToolCallFix("hermes")}`,
    };
  }
  if (stats.decisions > stats.failedDecisions) return null;
  const why = Object.entries(stats.turnErrors)
    .map(([type, n]) => `${type} ×${n}`)
    .join(", ");
  return {
    type: "no_decision",
    message:
      stats.decisions === 0
        ? "The agent made no decision: no bar was simulated."
        : `The agent never decided: all ${stats.decisions} decisions failed (${why}). See decisions.jsonl and transcript.jsonl.`,
  };
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * An LLM trader as a strategy: at each decision bar it builds the context (stable prefix, then
 * the volatile part), runs the bounded tool loop with the trading tools, and records everything
 * in the decision's line. Memory moments (fill, close, day/week/month end, run end) are gathered during the
 * bar and run as one short extra turn with only the memory tools at the bar's end.
 */
export function createLlmStrategy(
  s: LlmStrategySettings,
  deps: LlmStrategyDeps,
): Strategy<AgentState> {
  const memory = deps.memory;
  const tools = agentTools(memory);
  const rules = systemRules(memory.rules);
  const guide = toolGuide(memory.tools.map((t) => t.guide));
  // A system without tools (none) has nothing to write at a moment: no moment is ever due.
  const momentsOn = memory.tools.length > 0;
  const due = (state: AgentState, kind: MomentKind) => {
    if (momentsOn && s.moments.has(kind)) state.due.add(kind);
  };
  // A failure that ends the run, raised at the bar's end so the failed decision is on record.
  let pendingFailure: AgentRunError | null = null;
  let failedInRow = 0;
  let warnedTextCalls = false;
  const note = (state: AgentState, line: string) => {
    state.events.push(line);
    state.momentEvents.push(line);
  };

  async function turn(
    ctx: StrategyContext,
    events: readonly string[],
    moment: string | null,
    moments?: string[],
  ): Promise<{ outcome: LoopOutcome; messages: ChatCompletionMessageParam[] }> {
    const kind = moment === null ? "decision" : "moment";
    const started: DecisionStartedEvent = {
      type: "decision_started",
      time: ctx.timeLabel,
      bar: ctx.index,
      kind,
    };
    if (moments) started.moments = moments;
    deps.onEvent?.(started);
    const stableMemory = memory.stableSection();
    const prefix = buildStablePrefix({
      rules,
      toolGuide: guide,
      strategyPrompt: s.prompt,
      memory: stableMemory,
      symbols: ctx.symbols,
      tradingTerms: s.tradingTerms,
    });
    const held = ctx.account().positions.map((p) => p.symbol);
    const view = { time: ctx.time, index: ctx.index, held, symbols: ctx.symbols };
    const volatileMemory = memory.volatileSections(view);
    const context = buildVolatileContext({
      timeLabel: ctx.timeLabel,
      barNumber: ctx.index - deps.startIndex + 1,
      totalBars: deps.totalBars,
      account: ctx.account(),
      memory: volatileMemory,
      orders: ctx.orders(),
      events,
      bars: ctx.symbols.map((symbol) => ({
        symbol,
        rows: ctx
          .bars(s.contextBars, symbol)
          .map((bar) => ({ label: deps.timeLabelOf(bar.time), bar })),
      })),
      moment,
      request: moment === null ? DECISION_REQUEST : MOMENT_PREAMBLE,
    });
    // A system may put text in front of a trading decision's message (persistent: auto-recall,
    // with the message as the query); memory moments get none.
    const injected = moment === null ? (memory.decisionPrefix?.(context, view) ?? "") : "";
    const volatile = injected + context;
    const messages: ChatCompletionMessageParam[] = [
      { role: "system", content: prefix },
      { role: "user", content: volatile },
    ];
    const request: { model: string; temperature?: number; maxTokens?: number; seed?: number } = {
      model: s.model,
    };
    if (s.temperature !== undefined) request.temperature = s.temperature;
    if (s.maxOutputTokens !== undefined) request.maxTokens = s.maxOutputTokens;
    if (s.seed !== undefined) request.seed = s.seed;
    const outcome = await runToolLoop({
      model: deps.model,
      request,
      messages,
      tools: moment === null ? tools.trading : tools.memory,
      host: new BacktestToolHost(ctx, deps.timeLabelOf),
      maxSteps: s.maxSteps,
      beforeCall: deps.checkBudget,
      onResponse: deps.onResponse,
      summarise: sessionRules(memory.sessionSummary?.(ctx.time) ?? null, s.contextWindow ?? null),
      state: deps.state ?? null,
    });
    const summary = summarise(outcome);
    if (moment === null && outcome.toolCalls.length > 0 && deps.toolUse) {
      deps.toolUse.decisionsWithTools++;
    }
    if (outcome.textToolCalls > 0) {
      if (deps.toolUse) deps.toolUse.textToolCalls += outcome.textToolCalls;
      if (!warnedTextCalls) {
        warnedTextCalls = true;
        deps.onWarning?.(
          `The model server returned tool calls as text (at ${ctx.timeLabel}); they were read and run, and decisions.jsonl marks them (textToolCalls). ${textToolCallFix("hermes")}`,
        );
      }
    }
    ctx.annotate({
      contextHash: sha256(JSON.stringify(messages)),
      prefixHash: sha256(prefix),
      // `memory`: the characters the memory system put in the prompt (its sections and what it
      // injected), for compare's share of the prompt that is memory.
      promptChars: {
        prefix: prefix.length,
        volatile: volatile.length,
        memory:
          sectionChars(stableMemory === null ? [] : [stableMemory]) +
          sectionChars(volatileMemory) +
          injected.length,
      },
      ...summary,
    });
    const stats = deps.stats;
    const error = outcome.error;
    const failed = error !== null && isFailedTurn(error.type);
    if (moment === null) {
      stats.decisions++;
      if (failed) stats.failedDecisions++;
      failedInRow = failed ? failedInRow + 1 : 0;
    } else stats.moments++;
    stats.toolCalls += outcome.toolCalls.length;
    for (const c of outcome.toolCalls) if (c.error) bump(stats.toolErrors, c.error.type);
    if (error) bump(stats.turnErrors, error.type);
    if (deps.onEvent) {
      deps.onEvent({
        type: "decision_finished",
        time: ctx.timeLabel,
        bar: ctx.index,
        kind,
        rationale: outcome.rationale === "" ? null : outcome.rationale,
        toolCalls: outcome.toolCalls.map((c) => ({ name: c.name, error: c.error?.type ?? null })),
        calls: summary.calls,
        // The decisions.jsonl line's totals: one sum per turn.
        tokens: { ...summary.tokens },
        latencyMs: summary.latencyMs,
        error: error ? { type: error.type, message: error.message } : null,
        failed,
      });
    }
    const what =
      moment === null ? `The decision at ${ctx.timeLabel}` : `The memory turn at ${ctx.timeLabel}`;
    if (error && FATAL_FAILURES.has(error.type)) {
      pendingFailure ??= new AgentRunError(
        error.type,
        `${what} failed: ${error.message} The run stops: no retry and no later decision can fix this.`,
      );
    } else if (moment === null && error && failed && failedInRow >= s.maxFailedDecisions) {
      pendingFailure ??= new AgentRunError(
        "max_failed_decisions",
        `${failedInRow} decisions in a row failed (--max-failed-decisions ${s.maxFailedDecisions}); the last, at ${ctx.timeLabel}: ${error.type}: ${error.message} Fix the cause, or allow more with --max-failed-decisions.`,
      );
    }
    if (outcome.error?.type === "budget_exhausted")
      ctx.stop("budget_exhausted", outcome.error.message);
    // Nothing is lost by waiting longer than the cap allows: the run ends resumable.
    if (outcome.error?.type === "retry_wait_too_long")
      ctx.stop(
        "interrupted",
        `${outcome.error.message} The run stopped after ${ctx.timeLabel}: resume it with agenticbt resume.`,
      );
    return { outcome, messages };
  }

  return {
    name: s.name,
    description: s.prompt,
    init: () => ({ events: [], momentEvents: [], due: new Set<MomentKind>() }),
    async onBar(ctx, state) {
      if ((ctx.index - deps.startIndex) % s.every !== 0 || ctx.stopRequested) {
        deps.stats.skippedBars++;
        return;
      }
      const events = state.events;
      state.events = [];
      ctx.annotate({ type: "decision" });
      await turn(ctx, events, null);
    },
    onFill(ctx, fill, state) {
      note(state, fillLine(ctx.timeLabel, fill));
      due(state, "fill");
    },
    onTradeClosed(ctx, trade, state) {
      note(state, tradeLine(ctx.timeLabel, trade));
      due(state, "close");
    },
    onOrderUpdate(ctx, update, state) {
      note(state, updateLine(ctx.timeLabel, update));
    },
    onDayEnd: (_ctx, _day, state) => due(state, "eod"),
    onWeekEnd: (_ctx, _week, state) => due(state, "week"),
    onMonthEnd: (_ctx, _month, state) => due(state, "month"),
    onRunEnd: (_ctx, state) => due(state, "run_end"),
    async onBarEnd(ctx, state) {
      if (pendingFailure) throw pendingFailure;
      const at = { time: ctx.time, index: ctx.index, label: ctx.timeLabel };
      // A system may ask for a memory turn of its own (a layered reflection) at any bar;
      // --no-moments turns those off too.
      const extra = ctx.stopRequested || s.moments.size === 0 ? null : memory.pendingPrompt(at);
      if (state.due.size === 0 && extra === null) return;
      const kinds = [...state.due];
      state.due.clear();
      if (ctx.stopRequested) return;
      const events = state.momentEvents;
      state.momentEvents = [];
      const prompts = kinds.map((k) =>
        (memory.momentPrompt(k, at) ?? MOMENT_PROMPTS[k])
          .replace("{WEEK}", isoWeekKey(ctx.time))
          .replace("{MONTH}", monthKey(ctx.time)),
      );
      if (extra !== null) prompts.push(extra);
      const prompt = prompts.join("\n\n");
      ctx.annotate({ type: "moment", moments: kinds });
      await turn(ctx, events, prompt, kinds);
      if (pendingFailure) throw pendingFailure;
    },
  };
}

/** A section's characters as the prompt shows it: `# heading`, a blank line, the body. */
function sectionChars(sections: readonly MemorySection[]): number {
  let n = 0;
  for (const x of sections) n += x.heading.length + 4 + x.body.length;
  return n;
}

/** The decision's line in decisions.jsonl: tool calls with arguments and results, the rationale,
 * tokens, latency and the error type if any. */
function summarise(o: LoopOutcome) {
  const tokens: { prompt: number; completion: number; cached: number; reasoning?: number } = {
    prompt: 0,
    completion: 0,
    cached: 0,
  };
  let latencyMs = 0;
  let unknown = 0;
  for (const r of o.responses) {
    tokens.prompt += r.usage.prompt;
    tokens.completion += r.usage.completion;
    tokens.cached += r.usage.cached;
    if (r.usage.reasoning) tokens.reasoning = (tokens.reasoning ?? 0) + r.usage.reasoning;
    if (r.usage.unknown) unknown++;
    latencyMs += r.latencyMs;
  }
  return {
    calls: o.responses.length,
    sources: o.responses.map((r) => r.source),
    requestHashes: o.responses.map((r) => r.requestHash),
    toolCalls: o.toolCalls.map((c) => ({
      name: c.name,
      args: clip(c.args),
      result: clip(c.result),
      error: c.error,
    })),
    // The whole text is in the transcript already: a runaway answer is not stored twice.
    ...recordedRationale(
      o.rationale,
      () => o.responses.findLast((r) => r.message.content === o.rationale)?.requestHash ?? null,
    ),
    ...(o.summarised > 0 ? { summarisedToolResults: o.summarised } : {}),
    ...(o.historyOmitted > 0 ? { historyRoundsOmitted: o.historyOmitted } : {}),
    ...(o.modelSummaries > 0 ? { modelSummaries: o.modelSummaries } : {}),
    // Only when there is some: a decision without reasoning is recorded as it always was.
    ...(o.reasoning ? recordedReasoning(o.reasoning) : {}),
    ...(o.textToolCalls > 0 ? { textToolCalls: o.textToolCalls } : {}),
    tokens,
    // The server reported no usage for these calls: the tokens above leave them out.
    ...(unknown > 0 ? { tokensUnknownCalls: unknown } : {}),
    latencyMs: Math.round(latencyMs),
    error: o.error,
  };
}

/** The reasoning as decisions.jsonl keeps it: clipped as a rationale is, with its whole length. */
function recordedReasoning(text: string): { reasoning: string; reasoningChars: number } {
  return { reasoning: text.slice(0, RATIONALE_CLIP_CHARS), reasoningChars: text.length };
}

const bump = (counts: Record<string, number>, key: string) => {
  counts[key] = (counts[key] ?? 0) + 1;
};

/** Keeps decisions.jsonl readable: a hostile 1 MB argument is recorded as its start and size. */
function clip(value: unknown): unknown {
  const text = JSON.stringify(value) ?? "null";
  return text.length <= 4000
    ? value
    : { clipped: true, chars: text.length, start: text.slice(0, 1000) };
}

function fillLine(label: string, f: Fill): string {
  return `${label}: filled ${f.side} ${f.qty} ${f.symbol} @ ${price(f.price)} (order #${f.orderId}), commission ${money(f.commission)}`;
}

function tradeLine(label: string, t: ClosedTrade): string {
  return `${label}: closed ${t.side} ${t.qty} ${t.symbol}: entry ${price(t.entryPrice)} → exit ${price(t.exitPrice)}, P&L ${money(t.pnl)} (${(t.returnPct * 100).toFixed(2)}%)`;
}

function updateLine(label: string, u: OrderUpdate): string {
  return `${label}: order #${u.order.id} (${u.order.side ?? ""} ${u.order.type} ${u.order.symbol}) ${u.kind}: ${u.reason}`.replace(
    / +/g,
    " ",
  );
}

export { BudgetExhaustedError };

/**
 * The tool loop's session rules: the policy's, with its token percent turned into a token limit
 * of the known context window (none when the window is unknown: never guessed).
 */
export function sessionRules(
  r: SessionRules | null,
  contextWindow: number | null,
): LoopOptions["summarise"] {
  if (r === null) return null;
  const percent = r.tokenPercent ?? null;
  const relevantLimit = r.relevantLimit ?? 0;
  return {
    threshold: r.threshold,
    keep: r.keep,
    tokenLimit:
      percent === null || contextWindow === null
        ? null
        : Math.floor((contextWindow * percent) / 100),
    relevant:
      relevantLimit > 0 ? { limit: relevantLimit, fallbackKeep: r.fallbackKeep ?? 0 } : null,
    mode: r.mode ?? "stub",
  };
}
