/** When to try a failed call (to a model or an embeddings endpoint) again. */
export interface BackoffSettings {
  /** Delay scale of the first retry, in ms. */
  baseMs: number;
  /** Cap of the exponential delay, in ms. */
  maxMs: number;
}

/**
 * The longest wait a model call makes before its next attempt, unless told otherwise
 * (`--max-retry-wait`): a server asking for more is refused, not obeyed (docs/llm-traders.md).
 */
export const DEFAULT_MAX_RETRY_WAIT_MS = 120_000;

/** The window a provider's requests and tokens per minute are counted over (`--rate-window`). */
export const RATE_WINDOW_MS = 60_000;

/**
 * A server-requested wait longer than this is cut to it: a bogus header must not stall a run for
 * hours, and a wait this long is better reported as a failure by the next attempt.
 */
export const MAX_RETRY_AFTER_MS = 5 * 60_000;

/**
 * Exponential backoff with full jitter (uniform in [0, min(max, base·2^retry)]), so that many
 * clients rate-limited together do not all come back at the same instant. `retry` is 0 for the
 * first retry.
 */
export function backoffDelayMs(
  retry: number,
  settings: BackoffSettings,
  random: () => number,
): number {
  const ceiling = Math.min(settings.maxMs, settings.baseMs * 2 ** retry);
  return Math.floor(clampUnit(random()) * ceiling);
}

/** The wait a server asked for (see requestedWaitMs), cut to MAX_RETRY_AFTER_MS. */
export function retryAfterMs(
  headers: Headers | undefined,
  now: number = Date.now(),
): number | null {
  const wait = requestedWaitMs(headers, now);
  return wait === null ? null : Math.min(wait, MAX_RETRY_AFTER_MS);
}

/**
 * The wait a server asked for, as asked: `retry-after-ms` (milliseconds, as OpenAI sends) or
 * `Retry-After` (seconds or an HTTP date, RFC 9110). Null when absent or unreadable.
 */
export function requestedWaitMs(
  headers: Headers | undefined,
  now: number = Date.now(),
): number | null {
  if (!headers) return null;
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "") {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = headers.get("retry-after");
  if (after === null || after.trim() === "") return null;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds < 0 ? null : seconds * 1000;
  const date = Date.parse(after);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

function clampUnit(x: number): number {
  return Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0;
}
