import { isJsonObject } from "../util/json-object.js";
import { type ChatCompletionMessage, REASONING_FIELDS } from "./types.js";

/**
 * What a local server's answer may hold besides the text: a reasoning model's thoughts (in
 * `<think>` tags or a `reasoning_content` / `reasoning` field), and tool calls written as text by
 * a server whose tool-call parser is off. Pure functions: the tool loop decides what to do.
 */

/** The answer's text without its reasoning, and the reasoning ("" when there is none). */
export function splitReasoning(m: ChatCompletionMessage): { text: string; reasoning: string } {
  const parts: string[] = [];
  const extra = m as unknown as Record<string, unknown>;
  for (const field of REASONING_FIELDS) {
    const value = extra[field];
    if (typeof value === "string" && value.trim() !== "") parts.push(value.trim());
  }
  let text = m.content ?? "";
  if (/<\/?think>/i.test(text)) {
    // A chat template may open the block in the prompt, so the answer holds only its end; an
    // answer cut off by max_tokens may hold only its start.
    const closeOnly = /^[\s\S]*?<\/think>/i.exec(text);
    if (closeOnly && !/<think>/i.test(closeOnly[0])) {
      parts.push(closeOnly[0].replace(/<\/think>$/i, "").trim());
      text = text.slice(closeOnly[0].length);
    }
    text = text.replace(/<think>([\s\S]*?)(?:<\/think>|$)/gi, (_all, inner: string) => {
      parts.push(inner.trim());
      return "";
    });
    text = text.trim();
  }
  return { text, reasoning: parts.filter(Boolean).join("\n\n") };
}

/** A tool call read from the text. */
export interface TextToolCall {
  name: string;
  /** JSON text, as the API would have sent it. */
  arguments: string;
}

export type TextToolCalls =
  | { kind: "none" }
  | { kind: "calls"; format: TextCallFormat; calls: TextToolCall[]; rest: string }
  | { kind: "unparsed"; format: TextCallFormat; detail: string };

export type TextCallFormat = "hermes" | "mistral" | "json" | "llama";

/** The markers of the text formats of tool calls of common open models. */
const HERMES = /<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g;
const MISTRAL = "[TOOL_CALLS]";
const LLAMA = /<\|python_tag\|>|<function=[\w.-]+>/;

/**
 * Tool calls written as text in a reply: Hermes/Qwen `<tool_call>{…}</tool_call>`, Mistral
 * `[TOOL_CALLS][{…}]` (or `[TOOL_CALLS]name[ARGS]{…}`), or the whole reply being a JSON object (or
 * array of them) naming one of `tools` with its arguments. A reply with such a marker whose calls
 * cannot be read is `unparsed`: the tool calls are lost, and guessing would act on a misreading.
 */
export function readTextToolCalls(text: string, tools: readonly string[]): TextToolCalls {
  if (text.includes("<tool_call>")) {
    const calls: TextToolCall[] = [];
    for (const match of text.matchAll(HERMES)) {
      const call = callOf(parseJson(match[1] ?? ""));
      if (call === null) {
        return { kind: "unparsed", format: "hermes", detail: `<tool_call>${clip(match[1] ?? "")}` };
      }
      calls.push(call);
    }
    return { kind: "calls", format: "hermes", calls, rest: text.replace(HERMES, "").trim() };
  }
  const at = text.indexOf(MISTRAL);
  if (at >= 0) {
    const after = text.slice(at + MISTRAL.length).trim();
    const calls = callsOf(parseJson(after)) ?? argsCalls(after);
    if (calls === null || calls.length === 0) {
      return { kind: "unparsed", format: "mistral", detail: `${MISTRAL}${clip(after)}` };
    }
    return { kind: "calls", format: "mistral", calls, rest: text.slice(0, at).trim() };
  }
  const llama = LLAMA.exec(text);
  if (llama) {
    return { kind: "unparsed", format: "llama", detail: clip(text.slice(llama.index)) };
  }
  const bare = unfenced(text);
  if (bare.startsWith("{") || bare.startsWith("[")) {
    const value = parseJson(bare);
    const calls = value === undefined ? null : callsOf(value);
    if (calls && calls.length > 0 && calls.every((c) => tools.includes(c.name))) {
      return { kind: "calls", format: "json", calls, rest: "" };
    }
    // Broken JSON that names one of our tools: meant as a call, and lost.
    const named = tools.some((t) =>
      new RegExp(`"(?:name|function)"\\s*:\\s*"${t.replace(/[^\w]/g, "\\$&")}"`).test(bare),
    );
    if (named) {
      return { kind: "unparsed", format: "json", detail: clip(bare) };
    }
  }
  return { kind: "none" };
}

/** The server options that make it return tool calls as tool calls, for the error's message. */
export function textToolCallFix(format: TextCallFormat): string {
  const parser = format === "mistral" ? "mistral" : format === "llama" ? "llama3_json" : "hermes";
  return (
    "The server returned the tool calls as text: turn on its tool-call parser " +
    `(vLLM: --enable-auto-tool-choice --tool-call-parser ${parser}; llama.cpp llama-server: --jinja; ` +
    "Ollama and LM Studio: a model whose template supports tools). See docs/llm-traders.md."
  );
}

function callsOf(value: unknown): TextToolCall[] | null {
  const list = Array.isArray(value) ? value : [value];
  const calls = list.map(callOf);
  return calls.every((c): c is TextToolCall => c !== null) ? calls : null;
}

/** `{"name": …, "arguments": {…}}` (also `parameters`, and OpenAI's `{"function": {…}}`). */
function callOf(value: unknown): TextToolCall | null {
  if (!isJsonObject(value)) return null;
  const inner = isJsonObject(value.function) ? value.function : value;
  const name = inner.name;
  const args = inner.arguments ?? inner.parameters ?? {};
  if (typeof name !== "string" || name === "") return null;
  if (isJsonObject(args)) return { name, arguments: JSON.stringify(args) };
  if (typeof args === "string" && isJsonObject(parseJson(args))) return { name, arguments: args };
  return null;
}

/** Mistral's newer form: `name[ARGS]{…}`, one or more. */
function argsCalls(text: string): TextToolCall[] | null {
  const calls: TextToolCall[] = [];
  let rest = text;
  while (rest !== "") {
    const m = /^([\w.-]+)\[ARGS\]/.exec(rest);
    if (!m) return null;
    rest = rest.slice(m[0].length);
    const end = jsonEnd(rest);
    if (end < 0) return null;
    const args = parseJson(rest.slice(0, end));
    if (!isJsonObject(args)) return null;
    calls.push({ name: m[1] ?? "", arguments: JSON.stringify(args) });
    rest = rest.slice(end).replace(/^\s*(\[TOOL_CALLS\])?\s*/, "");
  }
  return calls;
}

/** The index just past the JSON object at the start of `s`, or -1. */
function jsonEnd(s: string): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i + 1;
  }
  return -1;
}

function unfenced(text: string): string {
  const t = text.trim();
  const fence = /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(t);
  return (fence?.[1] ?? t).trim();
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text.trim());
  } catch {
    return undefined;
  }
}

function clip(s: string): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length <= 120 ? one : `${one.slice(0, 120)}…`;
}
