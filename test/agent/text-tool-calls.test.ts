import { describe, expect, it } from "vitest";
import {
  readTextToolCalls,
  splitReasoning,
  textToolCallFix,
} from "../../src/agent/text-tool-calls.js";
import type { ChatCompletionMessage } from "../../src/agent/types.js";

const TOOLS = ["get_account", "memory_note", "memory_log", "place_order"];
const msg = (content: string | null, extra: Record<string, unknown> = {}) =>
  ({ role: "assistant", content, refusal: null, ...extra }) as ChatCompletionMessage;
const NOTE = { key: "k", content: "c" };

describe("splitReasoning", () => {
  it("leaves an answer without reasoning exactly as it was", () => {
    const text = "  Holding SPY.\n\nNothing to do.  ";
    expect(splitReasoning(msg(text))).toEqual({ text, reasoning: "" });
    expect(splitReasoning(msg(null))).toEqual({ text: "", reasoning: "" });
  });

  it("takes <think> blocks out of the text, closed, unclosed, or with only the closing tag", () => {
    expect(splitReasoning(msg("<think>\nA.\n</think>\n\nHold."))).toEqual({
      text: "Hold.",
      reasoning: "A.",
    });
    expect(splitReasoning(msg("<think>cut off by max_tokens"))).toEqual({
      text: "",
      reasoning: "cut off by max_tokens",
    });
    expect(splitReasoning(msg("opened by the template</think>\nHold."))).toEqual({
      text: "Hold.",
      reasoning: "opened by the template",
    });
    expect(splitReasoning(msg("<THINK>one</THINK>Buy.<think>two</think>"))).toEqual({
      text: "Buy.",
      reasoning: "one\n\ntwo",
    });
  });

  it("keeps reasoning_content and reasoning fields, before any tag's", () => {
    const m = msg("<think>tag</think>Hold.", { reasoning_content: "field", reasoning: "other" });
    expect(splitReasoning(m)).toEqual({ text: "Hold.", reasoning: "field\n\nother\n\ntag" });
  });
});

describe("readTextToolCalls", () => {
  it("reads Hermes/Qwen <tool_call> blocks, one or more, and keeps the text around them", () => {
    const text = `I will note it.\n<tool_call>\n${JSON.stringify({ name: "memory_note", arguments: NOTE })}\n</tool_call>\n<tool_call>{"name": "get_account", "arguments": {}}</tool_call>`;
    expect(readTextToolCalls(text, TOOLS)).toEqual({
      kind: "calls",
      format: "hermes",
      calls: [
        { name: "memory_note", arguments: JSON.stringify(NOTE) },
        { name: "get_account", arguments: "{}" },
      ],
      rest: "I will note it.",
    });
  });

  it("reads arguments given as a JSON string, and `parameters`", () => {
    const text = `<tool_call>${JSON.stringify({ name: "memory_note", arguments: JSON.stringify(NOTE) })}</tool_call>`;
    const found = readTextToolCalls(text, TOOLS);
    expect(found.kind === "calls" && found.calls).toEqual([
      { name: "memory_note", arguments: JSON.stringify(NOTE) },
    ]);
    const p = readTextToolCalls(JSON.stringify({ name: "memory_note", parameters: NOTE }), TOOLS);
    expect(p.kind === "calls" && p.calls[0]?.arguments).toBe(JSON.stringify(NOTE));
  });

  it("reads Mistral's [TOOL_CALLS] in both its forms", () => {
    const array = readTextToolCalls(
      `[TOOL_CALLS]${JSON.stringify([{ name: "memory_note", arguments: NOTE }])}`,
      TOOLS,
    );
    expect(array).toMatchObject({
      kind: "calls",
      format: "mistral",
      calls: [{ name: "memory_note" }],
    });
    const args = readTextToolCalls(
      `[TOOL_CALLS]memory_note[ARGS]${JSON.stringify(NOTE)}[TOOL_CALLS]get_account[ARGS]{}`,
      TOOLS,
    );
    expect(args.kind === "calls" && args.calls).toEqual([
      { name: "memory_note", arguments: JSON.stringify(NOTE) },
      { name: "get_account", arguments: "{}" },
    ]);
  });

  it("reads a reply that is only a JSON call of a known tool, fenced or not", () => {
    const bare = JSON.stringify({ name: "place_order", arguments: { symbol: "SPY" } });
    expect(readTextToolCalls(bare, TOOLS)).toMatchObject({ kind: "calls", format: "json" });
    expect(readTextToolCalls(`\`\`\`json\n${bare}\n\`\`\``, TOOLS)).toMatchObject({
      kind: "calls",
    });
    expect(readTextToolCalls(`[${bare}]`, TOOLS)).toMatchObject({ kind: "calls" });
  });

  it("leaves text, and JSON that names no known tool, as the answer", () => {
    expect(readTextToolCalls("Holding SPY: RSI at 50.", TOOLS)).toEqual({ kind: "none" });
    expect(readTextToolCalls('{"decision": "hold"}', TOOLS)).toEqual({ kind: "none" });
    expect(readTextToolCalls('{"name": "Bob", "arguments": {}}', TOOLS)).toEqual({ kind: "none" });
    expect(readTextToolCalls("I might call place_order later.", TOOLS)).toEqual({ kind: "none" });
  });

  it("calls a reply that looks like a tool call but cannot be read unparsed, with its format", () => {
    expect(
      readTextToolCalls('<tool_call>{"name": "memory_log", "arguments": {', TOOLS),
    ).toMatchObject({
      kind: "unparsed",
      format: "hermes",
    });
    expect(readTextToolCalls("[TOOL_CALLS]garbage", TOOLS)).toMatchObject({
      kind: "unparsed",
      format: "mistral",
    });
    expect(
      readTextToolCalls('{"name": "place_order", "arguments": {"symbol"', TOOLS),
    ).toMatchObject({
      kind: "unparsed",
      format: "json",
    });
    expect(readTextToolCalls('{"name": "place_order", "arguments": 5}', TOOLS)).toMatchObject({
      kind: "unparsed",
    });
    expect(readTextToolCalls("<|python_tag|>memory_note.call(k=1)", TOOLS)).toMatchObject({
      kind: "unparsed",
      format: "llama",
    });
  });

  it("names the server options that fix it", () => {
    expect(textToolCallFix("hermes")).toContain(
      "--enable-auto-tool-choice --tool-call-parser hermes",
    );
    expect(textToolCallFix("mistral")).toContain("--tool-call-parser mistral");
    expect(textToolCallFix("llama")).toContain("--tool-call-parser llama3_json");
    for (const f of ["hermes", "mistral", "json", "llama"] as const) {
      expect(textToolCallFix(f)).toContain("--jinja");
    }
  });
});
