/** A `--memory-namespace` that cannot name a directory of the persistent store (exit code 2). */
export class NamespaceError extends Error {
  override readonly name = "NamespaceError";
  readonly exitCode = 2;
}

/**
 * A `remember` call the store cannot carry out (no such title, an empty title or content). The
 * message goes back to the model as the tool's error, so it says what to send instead.
 */
export class RememberError extends Error {
  override readonly name = "RememberError";
}

/** The recorded snapshot a replay needs is missing or no longer matches its recorded hash. */
export class SnapshotError extends Error {
  override readonly name = "SnapshotError";
  readonly exitCode = 2;
}
