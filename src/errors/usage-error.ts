/** Bad usage or input found before anything is simulated: the CLI exits with code 2. Defined at
 * the bottom layer, so that every layer checking a setting throws it. */
export class UsageError extends Error {
  override readonly name = "UsageError";
  readonly exitCode = 2;
}
