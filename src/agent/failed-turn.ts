/** Turn errors that are not a failed decision: the model answered and acted, or we stopped it. */
const NOT_FAILED: ReadonlySet<string> = new Set([
  "max_steps",
  "budget_exhausted",
  "interrupted",
  "retry_wait_too_long",
]);

/** Whether a turn that ended with this error type (decisions.jsonl `error.type`) failed. */
export function isFailedTurn(errorType: string): boolean {
  return !NOT_FAILED.has(errorType);
}
