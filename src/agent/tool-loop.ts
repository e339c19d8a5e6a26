import {
  estimatePromptTokens,
  type RelevantHistoryRule,
  relevantHistory,
} from "./session-history.js";
import { readTextToolCalls, splitReasoning, textToolCallFix } from "./text-tool-calls.js";
import { dispatchToolCall, refuseToolCall, type ToolCallOutcome } from "./tools/dispatch.js";
import { type ToolDefinition, toOpenAiTools } from "./tools/tool-definition.js";
import type { ToolHost } from "./tools/tool-host.js";
import {
  CallStoppedError,
  type ChatCompletionMessageParam,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  LlmError,
} from "./types.js";
import { STATE_HEADER, type WorkspaceState } from "./workspace-state.js";

/** Failures that end the run rather than one decision: a replay that no longer matches its
 * recording cannot go on meaningfully. */
const FATAL = new Set(["replay_divergence", "replay_exhausted"]);

/**
 * Most tool calls of one answer that are run. A model (or a hostile prompt) can ask for hundreds in
 * one answer; each would run and its result re-enter the prompt. The excess is answered with a
 * `call_limit` tool error and not run, so the model learns the cap and can go on with a next step.
 */
export const MAX_TOOL_CALLS_PER_ANSWER = 16;

/** Thrown by `beforeCall` when the run's token or cost budget is spent. */
export class BudgetExhaustedError extends Error {
  override readonly name = "BudgetExhaustedError";
}

export interface LoopOptions {
  model: ChatModel;
  request: Omit<ChatRequest, "messages" | "tools">;
  messages: ChatCompletionMessageParam[];
  tools: readonly ToolDefinition<unknown>[];
  host: ToolHost;
  /** Hard bound on model calls for this decision. */
  maxSteps: number;
  /** Runs before every model call; throws BudgetExhaustedError to stop. */
  beforeCall?: () => void;
  /** Sees every answer (usage accounting). */
  onResponse?: (response: ChatResponse) => void;
  /**
   * The memory policy's session rules (docs/memory-policy.md): once the conversation holds more
   * than `threshold` messages (0: no count rule), or its estimated prompt reaches `tokenLimit`
   * tokens (null or absent: no token rule), the results of tool calls older than the last `keep`
   * messages are replaced by a one-line stub before the next call; with `relevant`, a call sends
   * only the earlier rounds relevant to the decision (session-history.ts). null: none.
   */
  summarise?: {
    threshold: number;
    keep: number;
    tokenLimit?: number | null;
    relevant?: RelevantHistoryRule | null;
    /** stub (absent): older results become a one-line stub; model: the model summarises the
     * older messages, through the same client as the decision (stubs if that call fails). */
    mode?: "stub" | "model";
  } | null;
  /**
   * The run's workspace state: every tool call run is counted in it, and a compaction (the
   * session summary replacing older results) appends its summary as a user message, replacing
   * the one an earlier compaction appended. null: no state message.
   */
  state?: WorkspaceState | null;
}

/** What an older tool result becomes under the session summary: short, and stable for caching. */
export function summarisedToolResult(chars: number): string {
  return `[older tool result summarised by the memory policy: ${chars} characters omitted]`;
}
const SUMMARISED =
  /^\[older tool result summarised by the memory policy: \d+ characters omitted\]$/;

export interface LoopOutcome {
  /** The whole conversation, request messages and answers. */
  messages: ChatCompletionMessageParam[];
  responses: ChatResponse[];
  toolCalls: ToolCallOutcome[];
  /** The model's final text (its rationale), or the last text it gave before stopping. */
  rationale: string;
  /** Why the decision did not complete normally, or null. Never silently a hold. */
  error: { type: string; message: string } | null;
  /** Tool results replaced by the session summary (0 without a policy threshold). */
  summarised: number;
  /** Earlier rounds left out of the turn's calls by the relevance rule, summed over its calls. */
  historyOmitted: number;
  /** Session summaries the model wrote (mode model). */
  modelSummaries: number;
  /** The model's reasoning (`<think>` blocks, `reasoning_content`), every answer's, kept apart
   * from the rationale; "" when there was none. */
  reasoning: string;
  /** Tool calls the server returned as text and the loop read (0 when it sent real tool calls). */
  textToolCalls: number;
}

/**
 * One decision: call the model, run the tools it asks for, give it their results, and repeat
 * until it answers without tool calls, or `maxSteps` calls have been made (`max_steps`), or a call
 * fails for good (the LlmError's type), or the budget is spent (`budget_exhausted`). A turn whose
 * only answer is empty (no text, no tool calls) ends with `empty_reply`. Tool errors
 * (bad JSON, unknown tool, invalid arguments, exceptions) go back to the model as results.
 */
export async function runToolLoop(o: LoopOptions): Promise<LoopOutcome> {
  const messages = [...o.messages];
  const tools = toOpenAiTools(o.tools);
  const out: LoopOutcome = {
    messages,
    responses: [],
    toolCalls: [],
    rationale: "",
    error: null,
    summarised: 0,
    historyOmitted: 0,
    modelSummaries: 0,
    reasoning: "",
    textToolCalls: 0,
  };
  const toolNames = o.tools.map((t) => t.name);
  for (let step = 0; step < o.maxSteps; step++) {
    let sent = messages;
    const rules = o.summarise;
    if (rules) {
      const byCount = rules.threshold > 0 && messages.length > rules.threshold;
      const tokenLimit = rules.tokenLimit ?? null;
      if (byCount || (tokenLimit !== null && estimatePromptTokens(messages) >= tokenLimit)) {
        const byModel = rules.mode === "model" ? await summariseByModel(o, messages, out) : false;
        if (out.error !== null) return out;
        const replaced = byModel ? 0 : summariseOlderResults(messages, rules.keep);
        out.summarised += replaced;
        if ((byModel || replaced > 0) && o.state) appendState(messages, o.state);
      }
      if (rules.relevant) {
        const chosen = relevantHistory(messages, rules.relevant);
        sent = chosen.messages;
        out.historyOmitted += chosen.omitted;
      }
    }
    let response: ChatResponse;
    try {
      o.beforeCall?.();
      response = await o.model.complete({ ...o.request, messages: sent, tools });
    } catch (err) {
      if (err instanceof BudgetExhaustedError) {
        out.error = { type: "budget_exhausted", message: err.message };
      } else if (err instanceof CallStoppedError) {
        out.error = { type: "interrupted", message: err.message };
      } else if (err instanceof LlmError && !FATAL.has(err.type)) {
        out.error = { type: err.type, message: err.message };
      } else {
        throw err;
      }
      return out;
    }
    out.responses.push(response);
    o.onResponse?.(response);
    const m = response.message;
    const { text, reasoning } = splitReasoning(m);
    if (reasoning) out.reasoning = out.reasoning ? `${out.reasoning}\n\n${reasoning}` : reasoning;
    let calls = (m.tool_calls ?? []).map((c) =>
      c.type === "function"
        ? { id: c.id, name: c.function.name, arguments: c.function.arguments }
        : { id: c.id, name: c.custom.name, arguments: c.custom.input },
    );
    // Only role, content and tool calls go back: the next request must not depend on extras a
    // provider adds (refusal, annotations, reasoning), or caching and replay would see different
    // requests.
    const assistant: ChatCompletionMessageParam = { role: "assistant", content: m.content ?? null };
    if (m.tool_calls?.length) assistant.tool_calls = m.tool_calls;
    let said = text;
    if (calls.length === 0 && text !== "") {
      const found = readTextToolCalls(text, toolNames);
      if (found.kind === "unparsed") {
        messages.push(assistant);
        out.rationale = text;
        out.error = {
          type: "tool_call_as_text",
          message: `The reply looks like a tool call written as text (${found.format} format) that could not be read (${found.detail}). ${textToolCallFix(found.format)}`,
        };
        return out;
      }
      if (found.kind === "calls") {
        // The server's tool parser is off: the calls are read as the parser would have, and go
        // back to the model as real tool calls so its next turn sees the usual conversation.
        calls = found.calls.map((c, i) => ({
          id: `text_call_${step + 1}_${i + 1}`,
          name: c.name,
          arguments: c.arguments,
        }));
        out.textToolCalls += calls.length;
        said = found.rest;
        assistant.content = found.rest === "" ? null : found.rest;
        assistant.tool_calls = calls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: c.arguments },
        }));
      }
    }
    messages.push(assistant);
    if (said) out.rationale = said;
    if (calls.length === 0) {
      // Neither a word nor an action in the whole turn: the model did not decide, so this is a
      // failure, not a hold. (Silence after tool calls is fine: the model acted.)
      if (!said.trim() && !m.refusal && out.toolCalls.length === 0) {
        out.error = {
          type: "empty_reply",
          message: reasoning
            ? `the model answered with only its reasoning (${reasoning.length} characters): neither text nor tool calls`
            : "the model answered with neither text nor tool calls",
        };
      }
      return out;
    }
    for (const [index, call] of calls.entries()) {
      const outcome =
        index < MAX_TOOL_CALLS_PER_ANSWER
          ? await dispatchToolCall(call, o.tools, o.host)
          : refuseToolCall(
              call,
              "call_limit",
              `Too many tool calls in one answer: ${calls.length} were sent and only the first ${MAX_TOOL_CALLS_PER_ANSWER} ran; this one (number ${index + 1}) did not run.`,
              `Send at most ${MAX_TOOL_CALLS_PER_ANSWER} tool calls per answer; repeat the ones you still need in your next answer.`,
            );
      if (index < MAX_TOOL_CALLS_PER_ANSWER) o.state?.increment(call.name);
      out.toolCalls.push(outcome);
      messages.push({ role: "tool", tool_call_id: call.id, content: outcome.content });
    }
  }
  out.error = {
    type: "max_steps",
    message: `the model was still calling tools after ${o.maxSteps} calls; the decision was cut off`,
  };
  return out;
}

/** The instruction of a model-written session summary. */
export const SESSION_SUMMARY_PROMPT =
  "Summarise these earlier steps of a trading decision for yourself: keep every fact, number, date, symbol and tool result you may still need; drop repetition. Answer with the summary only.";

/** What replaces the summarised messages: a user message, so the conversation stays valid. */
export function modelSummaryMessage(summary: string): string {
  return `[Summary of the earlier steps of this decision, by the memory policy]\n${summary}`;
}

/**
 * The seed's session summary: the messages between the decision's context and the last `keep`
 * (never starting the kept tail inside a round: a tool result needs its call) are sent to the
 * model with SESSION_SUMMARY_PROMPT, through the decision's own client (cache, transcript, budget,
 * replay), and replaced by its answer. False when there is nothing to summarise or the call
 * failed (the caller then stubs, the deterministic fallback); a spent budget ends the turn.
 */
async function summariseByModel(
  o: LoopOptions,
  messages: ChatCompletionMessageParam[],
  out: LoopOutcome,
): Promise<boolean> {
  let cut = messages.length - (o.summarise?.keep ?? 0);
  while (cut > 2 && messages[cut]?.role === "tool") cut--;
  if (cut <= 2) return false;
  const older = messages.slice(2, cut);
  const transcript = older.map(transcriptLine).join("\n\n");
  let response: ChatResponse;
  try {
    o.beforeCall?.();
    response = await o.model.complete({
      ...o.request,
      messages: [
        { role: "system", content: SESSION_SUMMARY_PROMPT },
        { role: "user", content: transcript },
      ],
    });
  } catch (err) {
    if (err instanceof BudgetExhaustedError) {
      out.error = { type: "budget_exhausted", message: err.message };
      return false;
    }
    if (err instanceof CallStoppedError) {
      out.error = { type: "interrupted", message: err.message };
      return false;
    }
    if (err instanceof LlmError && !FATAL.has(err.type)) return false;
    throw err;
  }
  out.responses.push(response);
  o.onResponse?.(response);
  const summary = splitReasoning(response.message).text.trim();
  if (summary === "") return false;
  messages.splice(2, cut - 2, { role: "user", content: modelSummaryMessage(summary) });
  out.modelSummaries++;
  out.summarised += older.filter((m) => m.role === "tool").length;
  return true;
}

/** One older message as the summary request shows it. */
function transcriptLine(m: ChatCompletionMessageParam): string {
  const text = typeof m.content === "string" ? m.content : "";
  if (m.role === "assistant") {
    const calls = (m.tool_calls ?? []).map((c) =>
      c.type === "function" ? `${c.function.name}(${c.function.arguments})` : c.custom.name,
    );
    return `assistant: ${[text, ...calls].filter((x) => x !== "").join("\n")}`;
  }
  return `${m.role}: ${text}`;
}

/**
 * Replaces the content of tool results before the last `keep` messages (the system prompt and the
 * decision's context, the first two, always stay whole). A tool message itself must stay: the
 * API pairs each tool call with its result. Returns how many results were replaced.
 */
function summariseOlderResults(messages: ChatCompletionMessageParam[], keep: number): number {
  let n = 0;
  for (let i = 2; i < messages.length - keep; i++) {
    const m = messages[i];
    if (m?.role !== "tool" || typeof m.content !== "string" || SUMMARISED.test(m.content)) continue;
    messages[i] = { ...m, content: summarisedToolResult(m.content.length) };
    n++;
  }
  return n;
}

/**
 * Appends the workspace state after a compaction, removing the state message of an earlier
 * compaction (only one is current; it always follows a turn's tool results, so removing it keeps
 * every tool call paired with its result).
 */
function appendState(messages: ChatCompletionMessageParam[], state: WorkspaceState): void {
  for (let i = messages.length - 1; i >= 2; i--) {
    const m = messages[i];
    if (m?.role === "user" && typeof m.content === "string" && m.content.startsWith(STATE_HEADER)) {
      messages.splice(i, 1);
    }
  }
  messages.push({ role: "user", content: state.summary() });
}
