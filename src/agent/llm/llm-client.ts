import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import OpenAI from "openai";
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import { backoffDelayMs, DEFAULT_MAX_RETRY_WAIT_MS } from "../../util/backoff.js";
import type { AgentEventListener } from "../agent-events.js";
import {
  CallStoppedError,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  LlmError,
  type ResponseSource,
  type TokenUsage,
} from "../types.js";
import {
  type AttemptFailure,
  classifyFailure,
  failureMessage,
  UNREACHABLE_RETRY,
  waitTooLongMessage,
} from "./classify-failure.js";
import { DEFAULT_BASE_URL, NO_API_KEY } from "./llm-settings.js";
import {
  type AdmittedRequest,
  ProviderLimiter,
  type ProviderRateLimiter,
  RATE_WINDOW_MS,
} from "./provider-limiter.js";
import { type AnswerNote, readCompletion } from "./read-completion.js";
import { type RecordedAnswer, ZERO_USAGE } from "./recorded-answer.js";
import { redactSecret } from "./redact.js";
import type { ReplaySource } from "./replay-source.js";
import { canonicalRequest, hashRequest } from "./request-hash.js";
import { cacheKey, type ResponseCache } from "./response-cache.js";
import type { ResumedCalls } from "./resumed-calls.js";
import type { TranscriptEntry, TranscriptWriter } from "./transcript.js";
import { CHARS_PER_TOKEN, estimateUsage, type UsageMeter } from "./usage-meter.js";

export {
  DEFAULT_BASE_URL,
  type LlmFlags,
  type LlmSettings,
  LlmSettingsError,
  NO_API_KEY,
  resolveLlmSettings,
} from "./llm-settings.js";

export interface LlmClientOptions {
  /** Used for requests whose `model` is empty. */
  model?: string | undefined;
  /** OpenAI-compatible endpoint ending in /v1 (resolve flags and env with resolveLlmSettings). */
  baseURL?: string | undefined;
  apiKey?: string | undefined;
  /** Per attempt, until the whole answer has arrived. Default 60000. */
  timeoutMs?: number;
  /** Retries after the first attempt, for 429, 5xx, timeouts and lost connections. Default 4.
   * A refused connection gets at most UNREACHABLE_RETRY.maxRetries quick ones. */
  maxRetries?: number;
  /** Backoff scale: retry n waits up to min(retryMaxMs, retryBaseMs·2^n), jittered. Default 500. */
  retryBaseMs?: number;
  /** Default 20000. */
  retryMaxMs?: number;
  /** The longest wait before a retry. A server asking for a longer one (Retry-After) fails the
   * call at once as `retry_wait_too_long`. Default DEFAULT_MAX_RETRY_WAIT_MS. */
  maxRetryWaitMs?: number;
  /** Calls in flight at once (a call keeps its slot through its retries). Default 4. Ignored
   * when `limiter` is given. */
  concurrency?: number;
  /** The provider's limiter, shared with other clients (the runs of an experiment): calls in
   * flight, requests and tokens per minute, Retry-After pauses. Default: one of this client's
   * own, with `concurrency` and no rate limit. */
  limiter?: ProviderRateLimiter | null;
  cache?: ResponseCache | null;
  /** Set: every answer comes from this recording, with zero network. */
  replay?: ReplaySource | null;
  /** A resumed run: its calls made before the kill, answered first, as they were recorded. */
  resumed?: ResumedCalls | null;
  transcript?: TranscriptWriter | null;
  meter?: UsageMeter | null;
  /** Each model call and retry, the moment it happens (the run's live events). */
  onEvent?: AgentEventListener | null;
  /** Something about the server the user should know, said once per kind (a quirk we worked
   * around, token counts it does not report). */
  onWarning?: ((message: string) => void) | null;
  /** Jitter source in [0, 1). Default Math.random. */
  random?: () => number;
  /**
   * How maxTokens is sent. OpenAI's newer models reject `max_tokens`; many local servers only know
   * it. Default: `max_completion_tokens` for api.openai.com, `max_tokens` elsewhere.
   */
  maxTokensParam?: "max_tokens" | "max_completion_tokens";
}

interface Answer {
  answer: RecordedAnswer;
  usage: TokenUsage;
  latencyMs: number;
  attempts: number;
  source: ResponseSource;
}

/**
 * The real ChatModel: the official `openai` client (its own retries off) with our retries,
 * backoff and Retry-After, a concurrency limit, the response cache, replay, the transcript and
 * the usage meter. Order of answering: replay if set (never the network), else the cache, else
 * the network (and the answer is cached).
 */
export class LlmClient implements ChatModel {
  readonly model: string | undefined;
  readonly baseURL: string;
  private readonly apiKey: string;
  private readonly client: OpenAI;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly maxRetryWaitMs: number;
  /** Aborted by stop(): ends every wait and request of this client at once. */
  private readonly stopper = new AbortController();
  private waitRefused = false;
  private readonly limiter: ProviderRateLimiter;
  private readonly cache: ResponseCache | null;
  private readonly replay: ReplaySource | null;
  private readonly resumed: ResumedCalls | null;
  private readonly transcript: TranscriptWriter | null;
  private readonly meter: UsageMeter | null;
  private readonly onEvent: AgentEventListener | null;
  private readonly random: () => number;
  private readonly onWarning: ((message: string) => void) | null;
  private readonly warned = new Set<AnswerNote | "usage_unknown">();
  private readonly maxTokensParam: "max_tokens" | "max_completion_tokens";

  constructor(options: LlmClientOptions = {}) {
    this.model = options.model || undefined;
    this.baseURL = options.baseURL ?? DEFAULT_BASE_URL;
    this.apiKey = options.apiKey || NO_API_KEY;
    this.timeoutMs = positive(options.timeoutMs ?? 60_000, "timeoutMs");
    this.maxRetries = wholeNumber(options.maxRetries ?? 4, "maxRetries");
    this.retryBaseMs = wholeNumber(options.retryBaseMs ?? 500, "retryBaseMs");
    this.retryMaxMs = wholeNumber(options.retryMaxMs ?? 20_000, "retryMaxMs");
    this.maxRetryWaitMs = wholeNumber(
      options.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS,
      "maxRetryWaitMs",
    );
    this.limiter =
      options.limiter ??
      new ProviderLimiter({
        concurrency: options.concurrency ?? 4,
        rpm: null,
        tpm: null,
        windowMs: RATE_WINDOW_MS,
      });
    this.cache = options.cache ?? null;
    this.replay = options.replay ?? null;
    this.resumed = options.resumed ?? null;
    this.transcript = options.transcript ?? null;
    this.meter = options.meter ?? null;
    this.onEvent = options.onEvent ?? null;
    this.random = options.random ?? Math.random;
    this.onWarning = options.onWarning ?? null;
    this.maxTokensParam =
      options.maxTokensParam ??
      (/^https:\/\/api\.openai\.com(\/|$)/.test(this.baseURL)
        ? "max_completion_tokens"
        : "max_tokens");
    this.client = new OpenAI({
      apiKey: this.apiKey,
      baseURL: this.baseURL,
      timeout: this.timeoutMs,
      // We retry ourselves: typed errors, our backoff, and attempts we can count and record.
      maxRetries: 0,
    });
  }

  /**
   * The run is stopping: every wait and request in flight ends now, and every later call, with a
   * CallStoppedError (recorded nowhere: the provider did nothing wrong).
   */
  stop(): void {
    this.stopper.abort();
  }

  /** Whether a call was cut short: by stop(), or by a server asking for a wait over the cap. */
  get cutShort(): boolean {
    return this.stopper.signal.aborted || this.waitRefused;
  }

  async complete(request: ChatRequest, purpose?: string): Promise<ChatResponse> {
    const effective = canonicalRequest({ ...request, model: request.model || this.model || "" });
    const requestHash = hashRequest(effective);
    const started = performance.now();
    const recorded = this.resumed?.take(requestHash, effective) ?? null;
    if (recorded) return this.answerAsRecorded(recorded, effective, requestHash);
    let outcome: Answer | LlmError;
    try {
      outcome = await this.answer(effective, requestHash);
    } catch (err) {
      if (err instanceof CallStoppedError) throw err;
      outcome = err instanceof LlmError ? err : this.unexpected(err);
    }
    if (outcome instanceof LlmError) {
      const source: ResponseSource = this.replay ? "replay" : "network";
      // A wait over the cap ends the run to be resumed, and a resume answers recorded calls as
      // they were: this one is asked again then, so it is not recorded.
      if (outcome.type !== "retry_wait_too_long") {
        this.transcript?.append({
          requestHash,
          request: effective,
          response: null,
          error: { type: outcome.type, message: outcome.message, status: outcome.status },
          usage: ZERO_USAGE,
          latencyMs: Math.round(performance.now() - started),
          attempts: outcome.attempts,
          source,
          ...(purpose === undefined ? {} : { purpose }),
        });
      }
      this.meter?.record({
        model: effective.model,
        source,
        usage: ZERO_USAGE,
        latencyMs: 0,
        error: outcome.type,
      });
      this.onEvent?.({
        type: "llm_call",
        model: effective.model,
        source,
        tokens: ZERO_USAGE,
        costUsd: 0,
        latencyMs: Math.round(performance.now() - started),
        attempts: outcome.attempts,
        error: outcome.type,
      });
      throw outcome;
    }
    const response: ChatResponse = {
      message: outcome.answer.message,
      finishReason: outcome.answer.finishReason,
      usage: outcome.usage,
      latencyMs: outcome.latencyMs,
      attempts: outcome.attempts,
      source: outcome.source,
      requestHash,
    };
    this.transcript?.append({
      requestHash,
      request: effective,
      response: outcome.answer,
      error: null,
      usage: outcome.usage,
      latencyMs: outcome.latencyMs,
      attempts: outcome.attempts,
      source: outcome.source,
      ...(purpose === undefined ? {} : { purpose }),
    });
    this.recordUsage(effective, response);
    this.onEvent?.({
      type: "llm_call",
      model: effective.model,
      source: response.source,
      tokens: response.usage,
      costUsd: this.meter
        ? this.meter.callCost(effective.model, response.source, response.usage)
        : null,
      latencyMs: response.latencyMs,
      attempts: response.attempts,
      error: null,
    });
    return response;
  }

  /** Meters an answer; one without token counts is estimated for the budget, and said once. */
  private recordUsage(request: ChatRequest, response: ChatResponse): void {
    const unknown = response.usage.unknown === true;
    this.meter?.recordResponse(
      request.model,
      response,
      unknown ? estimateUsage(request, response.message) : null,
    );
    if (unknown) {
      this.warnOnce(
        "usage_unknown",
        `The model server at ${this.baseURL} reports no token usage (no \`usage\` in its answers): tokens and cost are shown as unknown, and --max-tokens / --max-cost are enforced from a local estimate of ${CHARS_PER_TOKEN} characters per token.`,
      );
    }
  }

  private warnOnce(kind: AnswerNote | "usage_unknown", message: string): void {
    if (this.warned.has(kind)) return;
    this.warned.add(kind);
    this.onWarning?.(message);
  }

  /**
   * A call the run made before it was killed: counted and reported exactly as it was then, not
   * recorded twice. A replayed run's recording moves on past it too.
   */
  private answerAsRecorded(
    entry: TranscriptEntry,
    request: ChatRequest,
    requestHash: string,
  ): ChatResponse {
    if (this.replay) {
      try {
        this.replay.next(requestHash, request);
      } catch (err) {
        // The recording holds the same failure the transcript does: it is thrown below.
        if (!(err instanceof LlmError) || entry.error === null) throw err;
      }
    }
    if (entry.error || !entry.response) {
      const type = entry.error?.type ?? "invalid_response";
      this.meter?.record({
        model: request.model,
        source: entry.source,
        usage: ZERO_USAGE,
        latencyMs: 0,
        error: type,
      });
      this.onEvent?.({
        type: "llm_call",
        model: request.model,
        source: entry.source,
        tokens: ZERO_USAGE,
        costUsd: 0,
        latencyMs: entry.latencyMs,
        attempts: entry.attempts,
        error: type,
      });
      throw new LlmError(
        type,
        entry.error?.message ?? "the recording has neither an answer nor an error for this call",
        entry.error?.status ?? null,
        entry.attempts,
      );
    }
    const response: ChatResponse = {
      message: entry.response.message,
      finishReason: entry.response.finishReason,
      usage: entry.usage,
      latencyMs: entry.latencyMs,
      attempts: entry.attempts,
      source: entry.source,
      requestHash,
    };
    this.recordUsage(request, response);
    this.onEvent?.({
      type: "llm_call",
      model: request.model,
      source: response.source,
      tokens: response.usage,
      costUsd: this.meter
        ? this.meter.callCost(request.model, response.source, response.usage)
        : null,
      latencyMs: response.latencyMs,
      attempts: response.attempts,
      error: null,
    });
    return response;
  }

  private async answer(request: ChatRequest, requestHash: string): Promise<Answer> {
    if (this.replay) {
      const recorded = this.replay.next(requestHash, request);
      const answer = { message: recorded.message, finishReason: recorded.finishReason };
      return { answer, usage: recorded.usage, latencyMs: 0, attempts: 0, source: "replay" };
    }
    if (!request.model) {
      throw new LlmError(
        "bad_request",
        "No model name was given: pass --model (for example gpt-4o-mini, or llama3.1 for Ollama).",
      );
    }
    const key = this.cache ? cacheKey(this.baseURL, request) : "";
    const cached = this.cache?.get(key);
    if (cached) {
      const answer = { message: cached.message, finishReason: cached.finishReason };
      return { answer, usage: cached.usage, latencyMs: 0, attempts: 0, source: "cache" };
    }
    const release = await this.limiter.acquireSlot();
    let fetched: Answer;
    try {
      fetched = await this.fetchWithRetries(request);
    } finally {
      release();
    }
    this.cache?.put(key, this.baseURL, request, { ...fetched.answer, usage: fetched.usage });
    return fetched;
  }

  private async fetchWithRetries(request: ChatRequest): Promise<Answer> {
    const body = this.toParams(request);
    const totalAttempts = this.maxRetries + 1;
    // Faults of this call so far: counted as retried only if a later attempt succeeds; a call
    // that fails for good is one failure (in `errors`), not also a pile of retries.
    const overcome: AttemptFailure["type"][] = [];
    const stopping = this.stopper.signal;
    // Tokens per minute are counted from this estimate until the bill comes in.
    const estimate = estimatePromptTokens(request);
    for (let attempt = 1; attempt <= totalAttempts; attempt++) {
      if (stopping.aborted) throw stoppedError();
      let admitted: AdmittedRequest;
      try {
        admitted = await this.limiter.admit(estimate, stopping);
      } catch (err) {
        // Aborted by stop(); anything else is the limiter's own failure (its store), told as is.
        if (stopping.aborted) throw stoppedError();
        throw err;
      }
      // Kept (null) for a failure the server may have billed; a refusal (429) cost nothing.
      let billed: number | null = null;
      const controller = new AbortController();
      const stop = () => controller.abort();
      stopping.addEventListener("abort", stop, { once: true });
      let timedOut = false;
      // The client's own timeout stops at the response headers; this one also covers the body.
      const deadline = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, this.timeoutMs);
      const started = performance.now();
      try {
        const completion = await this.client.chat.completions.create(body, {
          signal: controller.signal,
        });
        const latencyMs = Math.round(performance.now() - started);
        const { answer, usage, notes } = readCompletion(completion);
        billed = usage.unknown
          ? totalOf(estimateUsage(request, answer.message))
          : usage.prompt + usage.completion;
        for (const note of notes) this.warnOnce(note, NOTE_MESSAGES[note](this.baseURL));
        for (const type of overcome) this.meter?.recordRetry(type);
        return { answer, usage, latencyMs, attempts: attempt, source: "network" };
      } catch (err) {
        if (stopping.aborted) throw stoppedError();
        const failure = classifyFailure(err, timedOut);
        if (failure.type === "rate_limit") billed = 0;
        // Its answer is in: the window counts it from now, not from after the wait below.
        admitted.settle(billed);
        const unreachable = failure.type === "unreachable";
        const lastAttempt = unreachable
          ? attempt > Math.min(this.maxRetries, UNREACHABLE_RETRY.maxRetries)
          : attempt === totalAttempts;
        const context = {
          baseURL: this.baseURL,
          model: request.model,
          attempts: attempt,
          timeoutMs: this.timeoutMs,
        };
        if (!failure.retryable || lastAttempt) {
          const message = redactSecret(failureMessage(failure, context), this.apiKey);
          throw new LlmError(failure.type, message, failure.status, attempt);
        }
        const asked = failure.retryAfterMs;
        if (asked !== null && asked > this.maxRetryWaitMs) {
          this.waitRefused = true;
          const message = waitTooLongMessage(failure, asked, this.maxRetryWaitMs, context);
          throw new LlmError(
            "retry_wait_too_long",
            redactSecret(message, this.apiKey),
            failure.status,
            attempt,
          );
        }
        overcome.push(failure.type);
        // Every run calling this provider waits as long as the server asked this one to.
        if (asked !== null) this.limiter.pause(asked);
        const wait =
          asked ??
          Math.min(
            this.maxRetryWaitMs,
            backoffDelayMs(
              attempt - 1,
              unreachable
                ? UNREACHABLE_RETRY
                : { baseMs: this.retryBaseMs, maxMs: this.retryMaxMs },
              this.random,
            ),
          );
        this.onEvent?.({
          type: "retry",
          model: request.model,
          error: failure.type,
          message: redactSecret(failureMessage(failure, context), this.apiKey),
          attempt,
          delayMs: wait,
          waitFrom: asked === null ? "backoff" : "server",
        });
        try {
          await sleep(wait, undefined, { signal: stopping });
        } catch {
          throw stoppedError();
        }
      } finally {
        clearTimeout(deadline);
        stopping.removeEventListener("abort", stop);
        // Once: a no-op when settled above.
        admitted.settle(billed);
      }
    }
    // The loop returns or throws on its last attempt; this satisfies the type checker.
    throw new LlmError("invalid_response", "No attempt was made (maxRetries < 0?).");
  }

  private toParams(request: ChatRequest): ChatCompletionCreateParamsNonStreaming {
    const params: ChatCompletionCreateParamsNonStreaming = {
      model: request.model,
      messages: request.messages,
    };
    if (request.tools && request.tools.length > 0) params.tools = request.tools;
    if (request.temperature !== undefined) params.temperature = request.temperature;
    if (request.maxTokens !== undefined) params[this.maxTokensParam] = request.maxTokens;
    if (request.seed !== undefined) params.seed = request.seed;
    return params;
  }

  /** A bug or an unforeseen failure still becomes a typed, recorded, key-free error. */
  private unexpected(err: unknown): LlmError {
    const reason = err instanceof Error ? err.message : String(err);
    return new LlmError(
      "invalid_response",
      redactSecret(`The model call failed unexpectedly: ${reason}`, this.apiKey),
    );
  }
}

/** What a worked-around quirk of the server means for the user. */
const NOTE_MESSAGES: Record<AnswerNote, (baseURL: string) => string> = {
  object_arguments: (url) =>
    `The model server at ${url} sends tool-call arguments as a JSON object instead of a JSON string; they are read as the object's JSON text (said once).`,
  missing_call_id: (url) =>
    `The model server at ${url} sends tool calls without an id; each is given one (said once).`,
};

/** A request's prompt tokens before it is sent, at CHARS_PER_TOKEN (as estimateUsage counts). */
function estimatePromptTokens(request: ChatRequest): number {
  return totalOf(estimateUsage(request, { role: "assistant", content: null, refusal: null }));
}

const totalOf = (t: { prompt: number; completion: number }) => t.prompt + t.completion;

function stoppedError(): CallStoppedError {
  return new CallStoppedError("the run is stopping: the model call was cut short");
}

function positive(value: number, name: string): number {
  if (!(Number.isFinite(value) && value > 0)) {
    throw new RangeError(`LlmClient ${name} must be a positive number of ms, got ${value}.`);
  }
  return value;
}

function wholeNumber(value: number, name: string): number {
  if (!(Number.isInteger(value) && value >= 0)) {
    throw new RangeError(`LlmClient ${name} must be a whole number ≥ 0, got ${value}.`);
  }
  return value;
}
