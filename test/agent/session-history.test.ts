import { describe, expect, it } from "vitest";
import { sessionRules } from "../../src/agent/llm-strategy.js";
import {
  estimatePromptTokens,
  relevanceTerms,
  relevantHistory,
} from "../../src/agent/session-history.js";
import type { ChatCompletionMessageParam } from "../../src/agent/types.js";

const call = (id: string, name: string, args: string): ChatCompletionMessageParam => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name, arguments: args } }],
});
const result = (id: string, content: string): ChatCompletionMessageParam => ({
  role: "tool",
  tool_call_id: id,
  content,
});
const head: ChatCompletionMessageParam[] = [
  { role: "system", content: "rules" },
  { role: "user", content: "AAPL breakout above resistance; volume rising" },
];

describe("the session's estimated prompt tokens", () => {
  it("are the characters of contents and tool calls, 4 to a token, rounded up", () => {
    // "rules" 5 + user 45 = 50 → 13 tokens; a call adds name 4 + arguments 2 = 6 → 56 → 14.
    expect(estimatePromptTokens(head)).toBe(13);
    expect(estimatePromptTokens([...head, call("a", "look", "{}")])).toBe(14);
  });
});

describe("relevant history", () => {
  // Rounds: 1 shares "aapl" and "breakout", 2 shares nothing, 3 shares "volume", then the newest.
  const rounds = [
    call("1", "get_bars", '{"symbol":"AAPL"}'),
    result("1", "breakout confirmed"),
    call("2", "memory_log", '{"content":"weather"}'),
    result("2", "ok"),
    call("3", "get_quote", '{"field":"volume"}'),
    result("3", "1200"),
    call("4", "get_account", "{}"),
    result("4", "cash 100"),
  ];
  const all = [...head, ...rounds];

  it("keeps the `limit` rounds sharing the most terms, in order, and always the newest", () => {
    expect(relevanceTerms("AAPL breakout, on volume!")).toEqual(
      new Set(["aapl", "breakout", "volume"]),
    );
    const one = relevantHistory(all, { limit: 1, fallbackKeep: 8 });
    expect(one.messages).toEqual([...head, ...rounds.slice(0, 2), ...rounds.slice(6)]);
    expect(one.omitted).toBe(2);
    const two = relevantHistory(all, { limit: 2, fallbackKeep: 8 });
    expect(two.messages).toEqual([
      ...head,
      ...rounds.slice(0, 2),
      ...rounds.slice(4, 6),
      ...rounds.slice(6),
    ]);
    expect(two.omitted).toBe(1);
  });

  it("with no relevant round: the newest whole rounds within fallback_keep messages; 0: none", () => {
    const none = [
      ...head,
      ...rounds.slice(2, 4),
      call("5", "x", "{}"),
      result("5", "y"),
      ...rounds.slice(6),
    ];
    // Earlier rounds: 2 and 5 (2 messages each). fallback 3 keeps round 5 only; 4 keeps both.
    expect(relevantHistory(none, { limit: 1, fallbackKeep: 3 }).messages).toEqual([
      ...head,
      call("5", "x", "{}"),
      result("5", "y"),
      ...rounds.slice(6),
    ]);
    expect(relevantHistory(none, { limit: 1, fallbackKeep: 4 }).omitted).toBe(0);
    expect(relevantHistory(none, { limit: 1, fallbackKeep: 0 })).toEqual({
      messages: [...head, ...rounds.slice(6)],
      omitted: 2,
    });
  });

  it("a decision's first call has no history to choose from", () => {
    expect(relevantHistory(head, { limit: 1, fallbackKeep: 0 })).toEqual({
      messages: head,
      omitted: 0,
    });
  });
});

describe("the policy's session rules for the tool loop", () => {
  const policy = { threshold: 0, keep: 4, tokenPercent: 75, relevantLimit: 0, fallbackKeep: 8 };
  it("turn the token percent into a limit of a known window only", () => {
    expect(sessionRules(policy, 128_000)).toEqual({
      threshold: 0,
      keep: 4,
      tokenLimit: 96_000,
      relevant: null,
      mode: "stub",
    });
    expect(sessionRules(policy, null)?.tokenLimit).toBeNull();
    expect(sessionRules({ ...policy, tokenPercent: 33 }, 1001)?.tokenLimit).toBe(330);
    expect(sessionRules({ ...policy, relevantLimit: 2 }, null)?.relevant).toEqual({
      limit: 2,
      fallbackKeep: 8,
    });
    expect(sessionRules(null, 128_000)).toBeNull();
  });
});

describe("relevant history after a model summary", () => {
  it("keeps the summary like the context, and scores against the context alone", () => {
    const summary: ChatCompletionMessageParam = { role: "user", content: "[Summary] weather" };
    const weather = [call("w", "memory_log", '{"content":"weather"}'), result("w", "ok")];
    const newest = [call("n", "get_account", "{}"), result("n", "cash")];
    // "weather" is in the summary, not in the context: the round is not relevant; fallback 0.
    expect(
      relevantHistory([...head, summary, ...weather, ...newest], { limit: 1, fallbackKeep: 0 }),
    ).toEqual({ messages: [...head, summary, ...newest], omitted: 1 });
  });
});
