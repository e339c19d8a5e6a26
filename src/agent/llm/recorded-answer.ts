import { z } from "zod";
import type { ChatCompletionMessage, ChatRequest, TokenUsage } from "../types.js";

/** The part of a model answer worth keeping: what the cache stores and a transcript records. */
export interface RecordedAnswer {
  message: ChatCompletionMessage;
  finishReason: string | null;
}

/**
 * The most tokens one model call can count: far above any model's context, low enough that no
 * sum or cost of a run's counts overflows. A server reporting more is reporting nonsense.
 */
export const MAX_TOKENS_PER_CALL = 1_000_000_000;

const tokenCount = z.number().int().nonnegative().max(MAX_TOKENS_PER_CALL);
const usageSchema = z.object({
  prompt: tokenCount,
  completion: tokenCount,
  cached: tokenCount,
  reasoning: tokenCount.optional(),
  unknown: z.literal(true).optional(),
});

// Loose: providers add fields (annotations, reasoning_content…) that must survive a round trip.
const messageSchema = z.looseObject({
  role: z.literal("assistant"),
  content: z.string().nullable().optional(),
});

export const recordedAnswerSchema = z.object({
  message: messageSchema,
  finishReason: z.string().nullable(),
});

// Only the shape the hash needs is checked; the hash itself vouches for the rest.
export const recordedRequestSchema = z.looseObject({
  model: z.string(),
  messages: z.array(z.unknown()),
});

export { usageSchema };

/**
 * Validated JSON back to the typed records. The casts are sound as far as the schemas go: the
 * message and request were written from these very types, the schemas catch a damaged file.
 */
export function toRecordedAnswer(value: z.infer<typeof recordedAnswerSchema>): RecordedAnswer {
  return {
    message: value.message as unknown as ChatCompletionMessage,
    finishReason: value.finishReason,
  };
}

export function toChatRequest(value: z.infer<typeof recordedRequestSchema>): ChatRequest {
  return value as unknown as ChatRequest;
}

export function toUsage(value: z.infer<typeof usageSchema>): TokenUsage {
  const usage: TokenUsage = {
    prompt: value.prompt,
    completion: value.completion,
    cached: value.cached,
  };
  if (value.reasoning !== undefined) usage.reasoning = value.reasoning;
  if (value.unknown) usage.unknown = true;
  return usage;
}

export const ZERO_USAGE: TokenUsage = Object.freeze({ prompt: 0, completion: 0, cached: 0 });
