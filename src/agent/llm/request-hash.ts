import { createHash } from "node:crypto";
import type { ChatRequest } from "../types.js";

/**
 * JSON with object keys sorted at every level, so two requests that mean the same thing hash the
 * same whatever order their keys were built in. Undefined values are dropped, as JSON.stringify
 * does, so `{ tools: undefined }` and no `tools` are the same request.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/**
 * The fields of a request that decide its answer, and nothing else: the cache key and the replay
 * check both use this, so a field added to ChatRequest later does not silently change old keys.
 */
export function canonicalRequest(request: ChatRequest): ChatRequest {
  const out: ChatRequest = { model: request.model, messages: request.messages };
  if (request.tools !== undefined && request.tools.length > 0) out.tools = request.tools;
  if (request.temperature !== undefined) out.temperature = request.temperature;
  if (request.maxTokens !== undefined) out.maxTokens = request.maxTokens;
  if (request.seed !== undefined) out.seed = request.seed;
  return out;
}

/** sha256 (hex) of the canonical request. */
export function hashRequest(request: ChatRequest): string {
  return createHash("sha256")
    .update(canonicalJson(canonicalRequest(request)))
    .digest("hex");
}
