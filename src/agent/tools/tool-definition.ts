import { z } from "zod";
import type { ChatCompletionTool } from "../types.js";
import type { ToolHost } from "./tool-host.js";

/**
 * One tool the model may call, declared as data: the name and description the model reads, the zod
 * schema that both renders the JSON schema and validates the arguments, and what the call does.
 * `run` receives the parsed (defaults filled, cross-field rules checked) arguments.
 */
export interface ToolDefinition<A> {
  name: string;
  description: string;
  parameters: z.ZodType<A>;
  // Method syntax on purpose: it keeps `ToolDefinition<GetBarsArgs>` assignable to
  // `ToolDefinition<unknown>`, so differently typed tools can share one list.
  run(args: A, host: ToolHost): unknown;
}

/** Identity, for inference: `A` comes from the schema, and `run` is checked against it. */
export function defineTool<A>(definition: ToolDefinition<A>): ToolDefinition<A> {
  return definition;
}

type JsonSchema = Record<string, unknown>;

/**
 * The JSON schema of a tool's arguments as OpenAI-compatible servers accept it: an object schema
 * with `properties`, `required` and `additionalProperties: false`. Rendered for the *input* side,
 * so params with defaults are optional to the model.
 */
export function toolParametersSchema(schema: z.ZodType): JsonSchema {
  const rendered = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  const { $schema: _dialect, ...rest } = rendered;
  const cleaned = stripNoise(rest) as JsonSchema;
  if (cleaned.type !== "object") {
    throw new Error(
      `tool parameters must be an object schema, got ${JSON.stringify(cleaned.type)}`,
    );
  }
  // A no-argument tool still needs both keys: some servers reject a function schema without them.
  return {
    ...cleaned,
    properties: cleaned.properties ?? {},
    required: cleaned.required ?? [],
    additionalProperties: false,
  };
}

/** Drops `propertyNames: {type: "string"}` (JSON keys are always strings, and several local
 * servers' grammar converters reject the keyword). */
function stripNoise(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripNoise);
  if (node === null || typeof node !== "object") return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "propertyNames" && isPlainStringSchema(value)) continue;
    out[key] = stripNoise(value);
  }
  return out;
}

function isPlainStringSchema(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    Object.keys(value).length === 1 &&
    (value as JsonSchema).type === "string"
  );
}

// Rendering runs zod's converter; tools are static, so once per definition is enough (the loop
// asks at every decision).
const rendered = new WeakMap<ToolDefinition<unknown>, ChatCompletionTool>();

/** The `tools` field of a chat request. Returns fresh objects, so callers may not alter the cache. */
export function toOpenAiTools(
  definitions: readonly ToolDefinition<unknown>[],
): ChatCompletionTool[] {
  return definitions.map((definition) => {
    let tool = rendered.get(definition);
    if (tool === undefined) {
      tool = {
        type: "function",
        function: {
          name: definition.name,
          description: definition.description,
          parameters: toolParametersSchema(definition.parameters),
        },
      };
      rendered.set(definition, tool);
    }
    return structuredClone(tool);
  });
}
