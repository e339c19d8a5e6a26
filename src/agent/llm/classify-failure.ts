import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { retryAfterMs } from "../../util/backoff.js";
import { LlmError, type LlmErrorType } from "../types.js";

/** One failed attempt of a model call, as far as retrying is concerned. */
export interface AttemptFailure {
  type: LlmErrorType;
  status: number | null;
  /** Worth another attempt: rate limits, server errors, timeouts, lost connections. */
  retryable: boolean;
  /** The wait the server asked for (Retry-After), if any. */
  retryAfterMs: number | null;
  /** What went wrong, in the words of the server or the HTTP client (not yet redacted). */
  detail: string;
}

/**
 * Sorts what the openai client threw. `timedOut` says our own per-attempt deadline fired, which
 * the client reports as a user abort.
 */
export function classifyFailure(err: unknown, timedOut: boolean): AttemptFailure {
  const failure = (
    type: LlmErrorType,
    retryable: boolean,
    detail: string,
    status: number | null = null,
    wait: number | null = null,
  ): AttemptFailure => ({ type, status, retryable, retryAfterMs: wait, detail });

  if (err instanceof APIConnectionTimeoutError || (timedOut && err instanceof APIUserAbortError)) {
    return failure("timeout", true, "no answer in time");
  }
  if (err instanceof APIConnectionError) {
    return failure("connection", true, withCause(err));
  }
  if (err instanceof APIError && typeof err.status === "number") {
    const status = err.status;
    const wait = retryAfterMs(err.headers);
    if (status === 429) return failure("rate_limit", true, err.message, status, wait);
    if (status === 408) return failure("timeout", true, err.message, status, wait);
    if (status >= 500) return failure("server_error", true, err.message, status, wait);
    if (status === 401 || status === 403) return failure("auth", false, err.message, status);
    return failure("bad_request", false, err.message, status);
  }
  if (err instanceof LlmError) return failure(err.type, false, err.message, err.status);
  // Anything else came out of decoding a 200 (a body that is not a chat completion).
  const detail = err instanceof Error ? err.message : String(err);
  return failure("invalid_response", false, detail);
}

function withCause(err: Error): string {
  const cause = err.cause instanceof Error ? err.cause.message : null;
  return cause ? `${err.message} (${cause})` : err.message;
}

export interface FailureContext {
  baseURL: string;
  model: string;
  attempts: number;
  timeoutMs: number;
}

/** The message a user reads when a call failed for good: what happened, then what to do. */
export function failureMessage(f: AttemptFailure, ctx: FailureContext): string {
  const tries = ctx.attempts === 1 ? "1 attempt" : `${ctx.attempts} attempts`;
  const server = `the model server at ${ctx.baseURL}`;
  switch (f.type) {
    case "timeout":
      return (
        `No answer from ${server} within ${ctx.timeoutMs} ms (${tries}). Check that the server ` +
        "is up, or allow more time (a local model may need long to load or answer)."
      );
    case "connection":
      return (
        `Could not reach ${server} (${tries}: ${f.detail}). Check --base-url / OPENAI_BASE_URL ` +
        "(it usually ends in /v1) and that the server is running."
      );
    case "rate_limit":
      return (
        `Still rate-limited by ${server} after ${tries} (${f.detail}). Lower the concurrency, ` +
        "wait a while, or raise the rate limit of your account."
      );
    case "server_error":
      return (
        `${capitalise(server)} kept failing (${tries}, last: ${f.detail}). The provider is ` +
        "having trouble: try again later."
      );
    case "auth":
      return (
        `${capitalise(server)} refused the API key (${f.detail}). Set OPENAI_API_KEY to a valid ` +
        `key for this server with access to model "${ctx.model}".`
      );
    case "bad_request":
      return (
        `${capitalise(server)} rejected the request for model "${ctx.model}" (${f.detail}). ` +
        "Check --model and --base-url, and that the model supports tool calling."
      );
    case "invalid_response":
      return (
        `${capitalise(server)} answered with something that is not a usable chat completion ` +
        `(${f.detail}). Check --base-url points at an OpenAI-compatible /v1 endpoint.`
      );
    default:
      return f.detail;
  }
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
