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

/**
 * The store's write lock stayed held by a live process for longer than any write takes (it is
 * stopped, or hung): this process cannot write the store without losing that one's changes.
 */
export class StoreLockError extends Error {
  override readonly name = "StoreLockError";
  /** Not the model's to fix: a tool call that meets it ends the run. */
  readonly fatal = true;
}
