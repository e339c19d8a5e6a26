// The public surface of recall: the rest of the folder is implementation.
export type { Citation } from "../../strategy/types.js";
export { bm25ToScore } from "./bm25-score.js";
export { CHUNK_TOKENS, OVERLAP_TOKENS } from "./chunk-markdown.js";
export { JOURNAL_RECALL_DAYS } from "./eligibility.js";
export type { EmbeddingsConfig } from "./embeddings.js";
export { removeIndexFiles } from "./index-db.js";
export { RecallEmbeddingError, RecallIndexError, RecallInputError } from "./recall-errors.js";
export {
  BM25_B,
  BM25_K1,
  DEFAULT_HYBRID_MIN_SCORE,
  DEFAULT_LIMIT,
  DEFAULT_WEIGHTS,
  dropIndexFile,
  type HybridWeights,
  INDEX_FILE,
  openRecallIndex,
  type RecallHealth,
  RecallIndex,
  type RecallIndexOptions,
  type SearchOptions,
} from "./recall-index.js";
export type { SyncReport } from "./sync-index.js";
