/** Bad usage or input found before anything is simulated: the CLI exits with code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
  readonly exitCode = 2;
}

/** A strategy file that cannot be loaded or is not a strategy. */
export class StrategyLoadError extends Error {
  override readonly name = "StrategyLoadError";
  readonly exitCode = 2;
}
