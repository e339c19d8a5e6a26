// Shared types of the LLM agent layer. The wire format is OpenAI's chat completions API (which
// Ollama, vLLM, llama.cpp server, OpenRouter and DeepSeek all speak), so messages and tools use the
// official `openai` package's types; these are type-only imports (no runtime cost).
import type {
  ChatCompletionMessage,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";

export type { ChatCompletionMessage, ChatCompletionMessageParam, ChatCompletionTool };

/**
 * Where reasoning models' servers put the thoughts, apart from `content` (DeepSeek, vLLM and
 * llama.cpp reasoning parsers, Ollama, OpenRouter): extra message fields the OpenAI types lack.
 */
export const REASONING_FIELDS = ["reasoning_content", "reasoning"] as const;

/** One request to the model: everything that decides its answer (and so its cache key). */
export interface ChatRequest {
  model: string;
  messages: ChatCompletionMessageParam[];
  tools?: ChatCompletionTool[];
  temperature?: number;
  maxTokens?: number;
  seed?: number;
}

export interface TokenUsage {
  prompt: number;
  completion: number;
  /** Prompt tokens the provider served from its prompt cache (`usage.prompt_tokens_details`). */
  cached: number;
  /** Completion tokens spent reasoning, when the server reports any
   * (`usage.completion_tokens_details.reasoning_tokens`). */
  reasoning?: number;
  /** The server reported no usage: the counts are placeholders, and the tokens and cost of this
   * call are unknown (never 0). */
  unknown?: true;
}

/** Where an answer came from: the network, the local response cache, or a recorded run. */
export type ResponseSource = "network" | "cache" | "replay";

export interface ChatResponse {
  /** The assistant message: text and/or tool calls. */
  message: ChatCompletionMessage;
  finishReason: string | null;
  usage: TokenUsage;
  /** Wall time of the successful attempt (0 for cache and replay). */
  latencyMs: number;
  /** Attempts made (1 = no retry). */
  attempts: number;
  source: ResponseSource;
  /** sha256 of the canonical request: the cache key and the replay check. */
  requestHash: string;
}

/** What the agent needs of a model; `LlmClient` is the real one. */
export interface ChatModel {
  /** `purpose`: names a call that is not a decision's in the transcript (a memory system's). */
  complete(request: ChatRequest, purpose?: string): Promise<ChatResponse>;
}

/** Every way a model call can fail, counted by type in result.json (and recorded in transcripts). */
export const LLM_ERROR_TYPES = [
  "timeout",
  "rate_limit",
  "server_error",
  "connection",
  "unreachable",
  "auth",
  "model_not_found",
  "not_found",
  "bad_request",
  "invalid_response",
  "replay_divergence",
  "replay_exhausted",
  /** The server asked for a wait longer than the client's cap (maxRetryWaitMs). */
  "retry_wait_too_long",
] as const;

export type LlmErrorType = (typeof LLM_ERROR_TYPES)[number];

/**
 * Failures that no retry and no later decision can fix: the key, the model name or the URL is
 * wrong, or nothing listens there. They fail the run at once instead of every decision failing.
 */
export const FATAL_FAILURES: ReadonlySet<string> = new Set<LlmErrorType>([
  "auth",
  "model_not_found",
  "not_found",
  "unreachable",
]);

/**
 * A model call cut short because the run is stopping (a stop signal): not the provider's fault,
 * so it is neither counted as a failed call nor recorded in the transcript.
 */
export class CallStoppedError extends Error {
  override readonly name = "CallStoppedError";
}

/** A model call that failed for good (after retries where they apply). The message never
 * contains the API key. */
export class LlmError extends Error {
  override readonly name = "LlmError";
  constructor(
    readonly type: LlmErrorType,
    message: string,
    readonly status: number | null = null,
    readonly attempts = 1,
  ) {
    super(message);
  }
}
