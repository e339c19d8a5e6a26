import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { requestedWaitMs } from "../../util/backoff.js";
import { secondsText } from "../../util/seconds-text.js";
import { LlmError, type LlmErrorType } from "../types.js";

/** One failed attempt of a model call, as far as retrying is concerned. */
export interface AttemptFailure {
  type: LlmErrorType;
  status: number | null;
  /** Worth another attempt: rate limits, server errors, timeouts, lost connections. */
  retryable: boolean;
  /** The wait the server asked for (Retry-After), as asked, if any. */
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
    // Refused, or no such host: nobody is listening there, so the fix is the user's.
    if (isUnreachable(err)) return failure("unreachable", true, withCause(err));
    return failure("connection", true, withCause(err));
  }
  if (err instanceof APIError && typeof err.status === "number") {
    const status = err.status;
    const wait = requestedWaitMs(err.headers);
    if (status === 429) return failure("rate_limit", true, err.message, status, wait);
    if (status === 408) return failure("timeout", true, err.message, status, wait);
    if (status >= 500) return failure("server_error", true, err.message, status, wait);
    if (status === 401 || status === 403) return failure("auth", false, err.message, status);
    if (status === 404) {
      // OpenAI sends code model_not_found; Ollama and vLLM only say so in the message. Any other
      // 404 means the URL does not lead to a chat completions endpoint.
      const named = err.code === "model_not_found" || /\bmodel\b/i.test(err.message);
      return failure(named ? "model_not_found" : "not_found", false, err.message, status);
    }
    return failure("bad_request", false, err.message, status);
  }
  if (err instanceof LlmError) return failure(err.type, false, err.message, err.status);
  // Anything else came out of decoding a 200 (a body that is not a chat completion).
  const detail = err instanceof Error ? err.message : String(err);
  return failure("invalid_response", false, detail);
}

function withCause(err: Error): string {
  const cause = err.cause instanceof Error ? err.cause.message : null;
  const code = systemCodes(err)[0];
  const why = [cause, code].filter(Boolean).join(": ");
  return why ? `${err.message} (${why})` : err.message;
}

/** System error codes meaning no server listens at the address (or the host does not exist). */
const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
]);

function isUnreachable(err: Error): boolean {
  return systemCodes(err).some((c) => UNREACHABLE_CODES.has(c)) || /bad port/i.test(causes(err));
}

/** The `code`s along the cause chain (fetch wraps the socket error, sometimes in an AggregateError). */
function systemCodes(err: unknown, depth = 0): string[] {
  if (!(err instanceof Error) || depth > 5) return [];
  const own = "code" in err && typeof err.code === "string" ? [err.code] : [];
  const inner =
    err instanceof AggregateError ? err.errors.flatMap((e) => systemCodes(e, depth + 1)) : [];
  return [...own, ...inner, ...systemCodes(err.cause, depth + 1)];
}

function causes(err: unknown, depth = 0): string {
  if (!(err instanceof Error) || depth > 5) return "";
  return `${err.message} ${causes(err.cause, depth + 1)}`;
}

/**
 * Retries of a refused connection: a server that is not running rarely starts within a second,
 * so a few quick attempts (waits of at most 250 ms, then 500 ms) tell a restart from a wrong URL
 * without stalling the run. Other faults use the client's --max-retries and backoff.
 */
export const UNREACHABLE_RETRY = { maxRetries: 2, baseMs: 250, maxMs: 500 };

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
    case "unreachable":
      return (
        `Could not reach ${server} (${tries}: ${f.detail}). Check --base-url / OPENAI_BASE_URL ` +
        "(it usually ends in /v1): is the server running?"
      );
    case "connection":
      return (
        `Lost the connection to ${server} (${tries}: ${f.detail}). Check the network, ` +
        "--base-url / OPENAI_BASE_URL, and that the server is running."
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
        `${capitalise(server)} refused the API key (${f.detail}). Check ` +
        `OPENAI_API_KEY: it must be a valid key for this server with access to model "${ctx.model}".`
      );
    case "model_not_found":
      return (
        `${capitalise(server)} has no model "${ctx.model}" (${f.detail}). Check --model ` +
        "(the server lists its models at /v1/models; Ollama: ollama pull <model>)."
      );
    case "not_found":
      return (
        `${ctx.baseURL}/chat/completions does not exist (${f.detail}). Check --base-url / ` +
        "OPENAI_BASE_URL: it should be the OpenAI-compatible API root, usually ending in /v1."
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

/**
 * The server asked for a wait (Retry-After) longer than the client's cap: what it asked, what the
 * cap is, and what to do.
 */
export function waitTooLongMessage(
  f: AttemptFailure,
  waitMs: number,
  capMs: number,
  ctx: FailureContext,
): string {
  const status = f.status === null ? f.type : `HTTP ${f.status} ${f.type}`;
  return (
    `${capitalise(`the model server at ${ctx.baseURL}`)} asked to wait ${seconds(waitMs)} before ` +
    `the next attempt (${status}: ${f.detail}), longer than the ${seconds(capMs)} a wait may ` +
    "last (--max-retry-wait). Try again once the wait is over, or raise --max-retry-wait."
  );
}

function seconds(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${secondsText(ms)} s`;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
