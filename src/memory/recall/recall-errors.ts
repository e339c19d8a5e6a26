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
