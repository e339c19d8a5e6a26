/** A run directory's file that a report needs cannot be read: bad input, so exit code 2. */
export class RunReadError extends Error {
  override readonly name = "RunReadError";
  readonly exitCode = 2;
}
