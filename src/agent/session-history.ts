import { CHARS_PER_TOKEN } from "./llm/usage-meter.js";
import type { ChatCompletionMessageParam } from "./types.js";

// The memory policy's rules over one decision's conversation (docs/memory-policy.md, Session):
// the prompt's size in tokens, estimated locally so that the rule gives the same answer in a
// live run, from the cache and in a replay, and the earlier tool rounds kept by relevance.

/** The text of a message as the model reads it: its content and its tool calls' names and
 * arguments. */
function messageChars(m: ChatCompletionMessageParam): number {
  let n = 0;
  const content = m.content;
  if (typeof content === "string") n += content.length;
  else if (Array.isArray(content)) {
    for (const part of content) if ("text" in part) n += part.text.length;
  }
  if (m.role === "assistant") {
    for (const c of m.tool_calls ?? []) {
      n +=
        c.type === "function"
          ? c.function.name.length + c.function.arguments.length
          : c.custom.name.length + c.custom.input.length;
    }
  }
  return n;
}

/** The prompt's tokens, estimated at CHARS_PER_TOKEN characters a token (rounded up). */
export function estimatePromptTokens(messages: readonly ChatCompletionMessageParam[]): number {
  let chars = 0;
  for (const m of messages) chars += messageChars(m);
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** Lower-case words of 3 or more letters or digits: the relevance rule's terms. */
export function relevanceTerms(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []);
}

export interface RelevantHistoryRule {
  /** Most earlier rounds kept (the ones sharing the most terms with the decision's context). */
  limit: number;
  /** Messages kept, newest whole rounds first, when no earlier round shares a term; 0: none. */
  fallbackKeep: number;
}

/**
 * The messages a call sends under `session_relevant_history_limit`. The system prompt, the
 * decision's context (the query), a model-written summary after it, and the newest round (the
 * answer and results the model must now read) always go; of the earlier rounds (an assistant
 * message and its tool results), those sharing the most terms with the query go, at most
 * `limit`, in their order; with none sharing a term, the newest whole rounds within
 * `fallbackKeep` messages. A round is never split: the API pairs each tool call with its result.
 */
export function relevantHistory(
  messages: readonly ChatCompletionMessageParam[],
  rule: RelevantHistoryRule,
): { messages: ChatCompletionMessageParam[]; omitted: number } {
  // A model-written summary (a user message after the context) is kept like the context.
  let start = 2;
  while (messages[start]?.role === "user") start++;
  const rounds: ChatCompletionMessageParam[][] = [];
  for (const m of messages.slice(start)) {
    const last = rounds.at(-1);
    if (m.role === "assistant" || last === undefined) rounds.push([m]);
    else last.push(m);
  }
  const newest = rounds.pop();
  if (newest === undefined) return { messages: [...messages], omitted: 0 };
  const head = messages.slice(0, start);
  const context = messages[1]?.content;
  const query = relevanceTerms(typeof context === "string" ? context : "");
  const scored = rounds.map((round, index) => {
    const terms = relevanceTerms(round.map(roundText).join("\n"));
    let score = 0;
    for (const t of terms) if (query.has(t)) score++;
    return { index, score };
  });
  let keep: Set<number>;
  if (scored.some((s) => s.score > 0)) {
    // Most shared terms first; of equal scores, the newer round.
    const best = scored
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score || b.index - a.index)
      .slice(0, rule.limit);
    keep = new Set(best.map((s) => s.index));
  } else {
    keep = new Set();
    let room = rule.fallbackKeep;
    for (let i = rounds.length - 1; i >= 0; i--) {
      const size = (rounds[i] as ChatCompletionMessageParam[]).length;
      if (size > room) break;
      room -= size;
      keep.add(i);
    }
  }
  const kept = rounds.filter((_, i) => keep.has(i)).flat();
  return { messages: [...head, ...kept, ...newest], omitted: rounds.length - keep.size };
}

function roundText(m: ChatCompletionMessageParam): string {
  const parts: string[] = [];
  if (typeof m.content === "string") parts.push(m.content);
  if (m.role === "assistant") {
    for (const c of m.tool_calls ?? []) {
      if (c.type === "function") parts.push(c.function.name, c.function.arguments);
    }
  }
  return parts.join("\n");
}
