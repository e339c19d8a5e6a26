export { DEFAULT_HOOK_TIMEOUT_S } from "../config/run-settings.js";

/** A strategy hook returned a promise that did not settle in time: the run fails with it. */
export class HookTimeoutError extends Error {
  override readonly name = "HookTimeoutError";
}

/**
 * `wait`, or a HookTimeoutError after `ms`. The timer is a live one on purpose: while a hook's
 * promise is pending it keeps the process up, so a promise that can never settle ends in this
 * error rather than in an empty event loop.
 */
export function settleWithin(
  wait: Promise<void>,
  ms: number,
  describe: () => string,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new HookTimeoutError(
          `${describe()} did not settle within ${ms / 1000} s (--hook-timeout): a promise it returned or awaited never resolved. Make sure every promise the strategy awaits settles (a missing resolve() call, an unanswered request without a timeout), or raise --hook-timeout.`,
        ),
      );
    }, ms);
  });
  return Promise.race([wait, timeout]).finally(() => clearTimeout(timer));
}
