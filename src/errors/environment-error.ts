/** result.json's error type for a fault of the machine or the install, not of a run's inputs. */
const ENVIRONMENT_ERROR = "environment";

/**
 * The machine or the install is broken (a native module that does not load): neither the strategy
 * nor the model caused it or can fix it, so an agent's tool call that meets it ends the run
 * (`fatal`), and it is never reported at a line of the strategy.
 */
export class EnvironmentError extends Error {
  override readonly name: string = "EnvironmentError";
  readonly type = ENVIRONMENT_ERROR;
  readonly fatal = true;
}

/** Whether `err` is a fault of the environment (see EnvironmentError), by its recorded type too. */
export function isEnvironmentError(err: unknown): boolean {
  return (
    typeof err === "object" &&
    err !== null &&
    (err as { type?: unknown }).type === ENVIRONMENT_ERROR
  );
}
