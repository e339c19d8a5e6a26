/** The recall index's state as a run left it (result.json's `index`). Its own file so the
 * library's public types do not reach the SQLite driver's types, which users need not install. */
export interface RecallHealth {
  files: number;
  chunks: number;
  /** When the index was last synced (this process) or last changed (any process), ISO time. */
  lastSync: string | null;
  /** Problems of the last sync (unreadable files). */
  errors: string[];
  embeddings: { model: string; baseURL: string; vectors: number } | null;
}
