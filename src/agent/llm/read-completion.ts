import { isJsonObject } from "../../util/json-object.js";
import {
  type ChatCompletionMessage,
  LlmError,
  REASONING_FIELDS,
  type TokenUsage,
} from "../types.js";
import { MAX_TOKENS_PER_CALL, type RecordedAnswer } from "./recorded-answer.js";

/**
 * Something a server did that we could make sense of, worth telling the user once: the run goes
 * on, but the server is not quite OpenAI-compatible (or leaves out what the budget needs).
 */
export type AnswerNote = "object_arguments" | "missing_call_id";

/** Every finish_reason we know the meaning of: OpenAI's, and TGI's names for a normal stop. */
const KNOWN_FINISH_REASONS = new Set([
  "stop",
  "length",
  "tool_calls",
  "content_filter",
  "function_call",
  "eos_token",
  "stop_sequence",
]);

/**
 * The answer and token counts of a chat completion, normalised to the fields the agent uses (so
 * cached and recorded answers are stable). A well-formed answer passes through unchanged. What can
 * be read without guessing is accepted (object `function.arguments` are serialised, a missing call
 * id is given one, content as text parts is joined) and noted; anything else is an
 * `invalid_response` naming the field, never a raw TypeError later on.
 */
export function readCompletion(raw: unknown): {
  answer: RecordedAnswer;
  usage: TokenUsage;
  notes: AnswerNote[];
} {
  const notes: AnswerNote[] = [];
  if (!isJsonObject(raw)) throw bad(`the answer is ${describe(raw)}, not a JSON object`);
  const choices = raw.choices;
  if (choices === undefined || choices === null) throw bad("the answer has no `choices`");
  if (!Array.isArray(choices)) throw bad(`\`choices\` is ${describe(choices)}, not an array`);
  const choice: unknown = choices[0];
  if (choice === undefined) throw bad("`choices` is empty");
  if (!isJsonObject(choice)) throw bad(`choices[0] is ${describe(choice)}, not an object`);
  const m = choice.message;
  if (m === undefined || m === null) throw bad(`choices[0].message is ${describe(m)}`);
  if (!isJsonObject(m)) throw bad(`choices[0].message is ${describe(m)}, not an object`);
  const message: ChatCompletionMessage = {
    role: "assistant",
    content: text(m.content, "choices[0].message.content"),
    refusal: optionalString(m.refusal, "choices[0].message.refusal"),
  };
  // Reasoning models' thoughts (DeepSeek, vLLM and llama.cpp reasoning parsers, Ollama, OpenRouter):
  // kept apart from the content, recorded, never sent back.
  for (const field of REASONING_FIELDS) {
    const value = optionalString(m[field], `choices[0].message.${field}`);
    if (value) Object.assign(message, { [field]: value });
  }
  const calls = m.tool_calls;
  if (calls !== undefined && calls !== null) {
    if (!Array.isArray(calls)) {
      throw bad(`choices[0].message.tool_calls is ${describe(calls)}, not an array`);
    }
    if (calls.length > 0) {
      message.tool_calls = calls.map((c: unknown, i: number) => toolCall(c, i, notes));
    }
  }
  const reason = choice.finish_reason;
  if (reason !== undefined && reason !== null && typeof reason !== "string") {
    throw bad(`choices[0].finish_reason is ${describe(reason)}, not a string`);
  }
  const finishReason = typeof reason === "string" ? reason : null;
  if (finishReason !== null && !KNOWN_FINISH_REASONS.has(finishReason)) {
    throw bad(
      `choices[0].finish_reason is "${clip(finishReason)}", which the OpenAI API does not define (stop, length, tool_calls, content_filter)`,
    );
  }
  // tool_calls with finish_reason "stop" is not checked: OpenAI itself answers so (a named
  // tool_choice, some gpt-4o-mini answers), as do vLLM and older Ollama; the calls are meant.
  return { answer: { message, finishReason }, usage: readUsage(raw.usage), notes };
}

function toolCall(c: unknown, i: number, notes: AnswerNote[]) {
  const at = `choices[0].message.tool_calls[${i}]`;
  if (!isJsonObject(c)) throw bad(`${at} is ${describe(c)}, not an object`);
  if (c.type !== undefined && c.type !== "function") {
    throw bad(`${at}.type is ${describe(c.type)}: only "function" tool calls are supported`);
  }
  const fn = c.function;
  if (!isJsonObject(fn)) throw bad(`${at}.function is ${describe(fn)}, not an object`);
  if (typeof fn.name !== "string" || fn.name === "") {
    throw bad(`${at}.function.name is ${describe(fn.name)}, not a tool name`);
  }
  const args = fn.arguments;
  let call = c;
  if (args === undefined || args === null) {
    call = { ...c, function: { ...fn, arguments: "" } };
  } else if (isJsonObject(args)) {
    // The meaning is clear (Ollama's native API and some gateways send an object): the text the
    // OpenAI API would have sent.
    notes.push("object_arguments");
    call = { ...c, function: { ...fn, arguments: JSON.stringify(args) } };
  } else if (typeof args !== "string") {
    throw bad(`${at}.function.arguments is ${describe(args)} where a JSON string belongs`);
  }
  if (typeof call.id !== "string" || call.id === "") {
    if (call.id !== undefined && call.id !== null && call.id !== "") {
      throw bad(`${at}.id is ${describe(call.id)}, not a string`);
    }
    // The id only pairs the call with its result: any unique one will do.
    notes.push("missing_call_id");
    call = { ...call, id: `call_${i + 1}` };
  }
  if (call.type === undefined) call = { ...call, type: "function" };
  // Checked field by field above: this is an OpenAI function tool call with extras kept as sent.
  return call as unknown as NonNullable<ChatCompletionMessage["tool_calls"]>[number];
}

/** `content`: a string, null, or OpenAI's array of text parts (some servers answer so). */
function text(value: unknown, field: string): string | null {
  if (value === undefined || value === null || typeof value === "string") return value ?? null;
  if (
    Array.isArray(value) &&
    value.every((p) => isJsonObject(p) && p.type === "text" && typeof p.text === "string")
  ) {
    return value.map((p) => (p as { text: string }).text).join("");
  }
  throw bad(`${field} is ${describe(value)} where a string belongs`);
}

function optionalString(value: unknown, field: string): string | null {
  if (value === undefined || value === null || typeof value === "string") return value ?? null;
  throw bad(`${field} is ${describe(value)} where a string belongs`);
}

/**
 * Token counts, or `unknown: true` when the server sent none (many local servers): zeros then
 * stand for "not reported", and the meter says unknown, never 0.
 */
function readUsage(value: unknown): TokenUsage {
  if (!isJsonObject(value)) return { prompt: 0, completion: 0, cached: 0, unknown: true };
  if (typeof value.prompt_tokens !== "number" && typeof value.completion_tokens !== "number") {
    return { prompt: 0, completion: 0, cached: 0, unknown: true };
  }
  const details = isJsonObject(value.prompt_tokens_details) ? value.prompt_tokens_details : {};
  const out = isJsonObject(value.completion_tokens_details) ? value.completion_tokens_details : {};
  const usage: TokenUsage = {
    prompt: count(value.prompt_tokens, "usage.prompt_tokens"),
    completion: count(value.completion_tokens, "usage.completion_tokens"),
    cached: count(details.cached_tokens, "usage.prompt_tokens_details.cached_tokens"),
  };
  // Only a count worth knowing is kept: OpenAI's plain models report 0, and a record that does not
  // change keeps their transcripts as they were.
  const reasoning = count(out.reasoning_tokens, "usage.completion_tokens_details.reasoning_tokens");
  if (reasoning > 0) usage.reasoning = reasoning;
  return usage;
}

/**
 * A token count, or 0 when the server left this one out. A number that cannot be one (negative,
 * not finite, beyond any call) is refused: counted, it would turn the run's cost and token budget
 * into nonsense.
 */
function count(value: unknown, field: string): number {
  if (typeof value !== "number") return 0;
  if (Number.isFinite(value) && value >= 0 && value <= MAX_TOKENS_PER_CALL)
    return Math.round(value);
  throw bad(
    `${field} is ${value}, which is not a token count (a whole number from 0 to ${MAX_TOKENS_PER_CALL.toLocaleString("en-US")})`,
  );
}

function bad(detail: string): LlmError {
  return new LlmError("invalid_response", detail);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "missing";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `a string ("${clip(value)}")`;
  if (typeof value === "object") return "an object";
  return `a ${typeof value} (${String(value)})`;
}

function clip(s: string): string {
  return s.length <= 40 ? s : `${s.slice(0, 40)}…`;
}
