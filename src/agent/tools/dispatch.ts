import type { z } from "zod";
import { isJsonObject } from "../../util/json-object.js";
import { clipText, cutText, quote } from "./clip-text.js";
import type { ToolDefinition } from "./tool-definition.js";
import { toolParametersSchema } from "./tool-definition.js";
import type { ToolHost } from "./tool-host.js";

export type ToolCallErrorType =
  | "malformed_json"
  | "unknown_tool"
  | "invalid_arguments"
  | "tool_error"
  | "call_limit";

export interface ToolCallError {
  type: ToolCallErrorType;
  message: string;
}

/** What one tool call did: recorded in decisions.jsonl, and `content` goes back to the model. */
export interface ToolCallOutcome {
  id: string;
  name: string;
  /** The arguments as the model sent them (parsed JSON), null when they were not JSON. */
  args: unknown | null;
  /** What the tool returned, null on error. */
  result: unknown | null;
  error: ToolCallError | null;
  /** The tool message's content: the result as JSON, or `{"error", "hint"}`. */
  content: string;
}

export interface ToolCall {
  id: string;
  name: string;
  /** The raw JSON text the model produced. */
  arguments: string;
}

/** Longest `content` returned to the model; every tool result re-enters the prompt, so this bounds
 * prompt growth within a decision. */
export const MAX_CONTENT_CHARS = 8000;

const MAX_ISSUES = 10;
const MAX_ISSUE_CHARS = 300;
const MAX_ERROR_CHARS = 2000;

/**
 * Runs one tool call of the model against `host`. Every failure the model can act on (bad JSON,
 * unknown tool, invalid arguments, a tool that throws or returns something unencodable) becomes an
 * outcome whose `content` tells the model what went wrong and how to fix it. Only an error marked
 * `fatal` (a broken embeddings endpoint the user configured) is rethrown: the model cannot fix it,
 * and turning it into a tool error would quietly degrade every later decision.
 */
export async function dispatchToolCall(
  call: ToolCall,
  tools: readonly ToolDefinition<unknown>[],
  host: ToolHost,
): Promise<ToolCallOutcome> {
  const parsed = parseArguments(call.arguments);
  const args = parsed.ok ? parsed.value : null;
  const fail = (type: ToolCallErrorType, message: string, hint: string) =>
    failedCall(call, args, type, message, hint);

  const tool = tools.find((candidate) => candidate.name === call.name);
  if (tool === undefined) {
    return fail(
      "unknown_tool",
      `Unknown tool ${quote(call.name)}.`,
      `Available tools: ${tools.map((t) => t.name).join(", ")}.`,
    );
  }
  if (!parsed.ok) {
    return fail(
      "malformed_json",
      `The arguments of ${tool.name} are not valid JSON (${parsed.problem}).`,
      objectHint(tool),
    );
  }
  if (!isJsonObject(parsed.value)) {
    return fail(
      "invalid_arguments",
      `The arguments of ${tool.name} must be a JSON object, got ${describeJsonType(parsed.value)}.`,
      objectHint(tool),
    );
  }

  const validated = tool.parameters.safeParse(parsed.value);
  if (!validated.success) {
    return fail(
      "invalid_arguments",
      `Invalid arguments for ${tool.name}:\n${formatIssues(validated.error.issues)}`,
      `Fix these and call ${tool.name} again. Parameters: ${describeParameters(tool)}.`,
    );
  }

  let result: unknown;
  try {
    result = await tool.run(validated.data, host);
  } catch (error) {
    if (isFatal(error)) throw error;
    return fail(
      "tool_error",
      clipText(errorMessage(error), MAX_ERROR_CHARS),
      "The arguments were valid but the action failed; read the message, then change the " +
        "request or go on without it.",
    );
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(result);
  } catch (error) {
    return fail(
      "tool_error",
      `The result of ${tool.name} could not be encoded as JSON: ${clipText(errorMessage(error), 200)}`,
      "Go on without it.",
    );
  }
  return {
    id: call.id,
    name: call.name,
    args,
    result: result === undefined ? null : result,
    error: null,
    // A tool without a meaningful answer still confirms it ran.
    content: bound(text ?? JSON.stringify({ ok: true }), tool.name),
  };
}

/**
 * A call that is not run at all (past the per-answer cap): it still gets a result, since the API
 * requires one per call id, and that result says why it did not run.
 */
export function refuseToolCall(
  call: ToolCall,
  type: ToolCallErrorType,
  message: string,
  hint: string,
): ToolCallOutcome {
  const parsed = parseArguments(call.arguments);
  return failedCall(call, parsed.ok ? parsed.value : null, type, message, hint);
}

function failedCall(
  call: ToolCall,
  args: unknown | null,
  type: ToolCallErrorType,
  message: string,
  hint: string,
): ToolCallOutcome {
  return {
    id: call.id,
    name: call.name,
    args,
    result: null,
    error: { type, message },
    content: JSON.stringify({ error: message, hint }),
  };
}

type Parsed = { ok: true; value: unknown } | { ok: false; problem: string };

function parseArguments(text: string): Parsed {
  // Some servers send "" for a call without arguments.
  if (text.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, problem: clipText(errorMessage(error), 200) };
  }
}

function describeJsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

function errorMessage(error: unknown): string {
  // Only the message: a stack trace would leak paths and teach the model nothing.
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** "n: Too big: expected number to be <=500", one line per issue. */
function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  const lines = issues.slice(0, MAX_ISSUES).map((issue) => {
    const path = issue.path.map(String).join(".");
    return clipText(path === "" ? issue.message : `${path}: ${issue.message}`, MAX_ISSUE_CHARS);
  });
  if (issues.length > MAX_ISSUES) lines.push(`(${issues.length - MAX_ISSUES} more issues)`);
  return lines.join("\n");
}

const parameterDescriptions = new WeakMap<ToolDefinition<unknown>, string>();

/** "symbol (required), n", from the same JSON schema the model was given. */
function describeParameters(tool: ToolDefinition<unknown>): string {
  const cached = parameterDescriptions.get(tool);
  if (cached !== undefined) return cached;
  let text: string;
  try {
    const schema = toolParametersSchema(tool.parameters);
    const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
    const names = Object.keys(isJsonObject(schema.properties) ? schema.properties : {});
    text =
      names.length === 0
        ? "none (send {})"
        : names.map((name) => (required.has(name) ? `${name} (required)` : name)).join(", ");
  } catch {
    text = "see the tool's schema";
  }
  parameterDescriptions.set(tool, text);
  return text;
}

function objectHint(tool: ToolDefinition<unknown>): string {
  return (
    'Arguments must be one JSON object, e.g. {"symbol": "AAPL", "n": 20}. ' +
    `Parameters of ${tool.name}: ${describeParameters(tool)}.`
  );
}

/** Cuts an oversized result and says so; the cut text is no longer valid JSON, which is fine for
 * the model and better than dropping the result. */
function bound(text: string, toolName: string): string {
  if (text.length <= MAX_CONTENT_CHARS) return text;
  const note =
    ` …[truncated: the ${toolName} result was ${text.length} characters, only the first part is ` +
    "shown; ask for less, e.g. a smaller n]";
  return cutText(text, MAX_CONTENT_CHARS - note.length) + note;
}

/** An error the model cannot act on: it ends the run (see dispatchToolCall). */
function isFatal(error: unknown): boolean {
  return error instanceof Error && "fatal" in error && error.fatal === true;
}
