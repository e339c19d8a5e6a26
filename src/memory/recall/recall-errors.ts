import { EnvironmentError } from "../../errors/environment-error.js";

/** The recall index file cannot be opened or written (permissions, disk, a locked database). */
export class RecallIndexError extends Error {
  override readonly name = "RecallIndexError";
}

/** A search was asked for something it cannot do (bad option values or combinations). */
export class RecallInputError extends Error {
  override readonly name = "RecallInputError";
}

/**
 * Embeddings were configured but could not be obtained or used (HTTP error, bad response,
 * wrong dimensions). Recall never falls back to keywords alone silently: fix the provider or
 * drop the embeddings option. The message never contains the API key.
 */
export class RecallEmbeddingError extends Error {
  override readonly name = "RecallEmbeddingError";
  /** Not the model's to fix: an agent's tool call that meets it ends the run (status failed). */
  readonly fatal = true;
}

/**
 * A memory file (journal day, note, review, playbook) is larger than recall reads: indexing reads
 * a file whole, and one this size is no agent's writing (a damaged run directory, or a file put
 * there by hand). Bad input (exit code 2), and not the model's to fix.
 */
export class MemoryFileTooLargeError extends Error {
  override readonly name = "MemoryFileTooLargeError";
  readonly exitCode = 2;
  readonly fatal = true;
  readonly file: string;

  constructor(file: string, bytes: number, limit: number) {
    super(
      `${file} is ${mib(bytes)} MiB, more than the ${mib(limit)} MiB a memory file may be: ` +
        "recall reads each memory file whole to index it. The run directory is damaged, or the " +
        "file was put there by hand: remove it or cut it down, then recall again.",
    );
    this.file = file;
  }
}

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(bytes < 1024 * 1024 ? 2 : 0);

/**
 * better-sqlite3's native binding (better_sqlite3.node) does not load: missing, or built for
 * another Node.js. The recall index cannot exist without it; the install must be repaired.
 */
export class SqliteBindingError extends EnvironmentError {
  override readonly name = "SqliteBindingError";

  constructor(cause: unknown) {
    // The first line says what failed; `bindings` lists every path it tried after it.
    const first = (cause instanceof Error ? cause.message : String(cause)).split("\n")[0] ?? "";
    const reason = first.replace(/\s*Tried:$/, "").replace(/([^.])$/, "$1.");
    super(
      `The SQLite library better-sqlite3 cannot load its native binding (better_sqlite3.node): ` +
        `${reason} The recall index of the run's memory needs it. Run \`npm rebuild ` +
        "better-sqlite3` where agenticbt is installed (or reinstall agenticbt), then run again.",
      { cause },
    );
  }
}
