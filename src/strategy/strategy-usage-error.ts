/** Raised for a strategy's misuse of the context (unknown symbol, bad arguments). */
export class StrategyUsageError extends Error {
  override readonly name = "StrategyUsageError";
}
