import type Database from "better-sqlite3";
import type { Embedder } from "./embeddings.js";
import { RecallEmbeddingError } from "./recall-errors.js";
import { chunkBody, sha256 } from "./sync-index.js";

const QUERY_CACHE_SIZE = 256;

/**
 * Chunk vectors cached by content (sha256 of the embedded text) and model, in the index and in
 * memory: an unchanged chunk is embedded once, across re-chunkings and rebuilds of the file
 * table. Only the chunks a search may return are embedded, lazily.
 */
export class VectorStore {
  private readonly vectors = new Map<string, Float32Array>();
  private readonly queries = new Map<string, Float32Array>();
  private loaded = false;

  constructor(
    private readonly db: Database.Database,
    readonly embedder: Embedder,
  ) {}

  /** Chunk vectors held for this model (in the index); query vectors are not counted. */
  count(): number {
    const row = this.db
      .prepare("SELECT count(*) AS n FROM embeddings WHERE model = ? AND hash NOT LIKE 'query:%'")
      .get(this.embedder.model) as { n: number };
    return row.n;
  }

  /** Cosine similarity (clamped at 0) of the query to each chunk, by chunk id. */
  async similarities(
    query: string,
    chunks: readonly { id: number; textHash: string }[],
  ): Promise<Map<number, number>> {
    await this.ensure(chunks.map((c) => c.textHash));
    const q = await this.queryVector(query);
    const out = new Map<number, number>();
    for (const c of chunks) {
      const v = this.vectors.get(c.textHash)!;
      if (v.length !== q.length) {
        throw new RecallEmbeddingError(
          `Model ${this.embedder.model} returned ${q.length}-dimensional query vectors, but the ` +
            `index holds ${v.length}-dimensional vectors under that name. Delete index.sqlite ` +
            "to re-embed, or configure the model the index was built with.",
        );
      }
      let dot = 0;
      for (let i = 0; i < q.length; i++) dot += q[i]! * v[i]!;
      // Negative cosine (opposite meaning) is as useless for recall as none at all.
      out.set(c.id, Math.max(0, Math.min(1, dot)));
    }
    return out;
  }

  /**
   * Query vectors are kept in the index too (under `query:<sha256>`), so a replay of the run can
   * answer every recall from the recorded index with no network call.
   */
  private async queryVector(query: string): Promise<Float32Array> {
    const cached = this.queries.get(query);
    if (cached !== undefined) return cached;
    const key = `query:${sha256(query)}`;
    const row = this.db
      .prepare("SELECT vector FROM embeddings WHERE hash = ? AND model = ?")
      .get(key, this.embedder.model) as { vector: Buffer } | undefined;
    let v: Float32Array | undefined = row === undefined ? undefined : fromBlob(row.vector);
    if (v === undefined) {
      [v] = await this.embedder.embed([query]);
      this.db
        .prepare(
          "INSERT OR REPLACE INTO embeddings (hash, model, dims, vector) VALUES (?, ?, ?, ?)",
        )
        .run(key, this.embedder.model, v!.length, toBlob(v!));
    }
    if (this.queries.size >= QUERY_CACHE_SIZE) {
      const oldest = this.queries.keys().next().value;
      if (oldest !== undefined) this.queries.delete(oldest);
    }
    this.queries.set(query, v!);
    return v!;
  }

  private async ensure(hashes: readonly string[]): Promise<void> {
    if (!this.loaded) {
      const rows = this.db
        .prepare("SELECT hash, vector FROM embeddings WHERE model = ? AND hash NOT LIKE 'query:%'")
        .all(this.embedder.model) as { hash: string; vector: Buffer }[];
      for (const row of rows) this.vectors.set(row.hash, fromBlob(row.vector));
      this.loaded = true;
    }
    const missing = [...new Set(hashes.filter((h) => !this.vectors.has(h)))];
    if (missing.length === 0) return;
    const textOf = this.db.prepare("SELECT context, text FROM chunks WHERE text_hash = ? LIMIT 1");
    const texts = missing.map((h) => {
      const row = textOf.get(h) as { context: string; text: string };
      return chunkBody(row.context, row.text);
    });
    const vectors = await this.embedder.embed(texts);
    const dims = new Set(vectors.map((v) => v.length));
    const held = this.vectors.values().next().value;
    if (held !== undefined) dims.add(held.length);
    if (dims.size > 1) {
      throw new RecallEmbeddingError(
        `Model ${this.embedder.model} returned vectors of ${[...dims].join(" and ")} dimensions ` +
          "for the same index. Delete index.sqlite to re-embed, or configure the model the " +
          "index was built with.",
      );
    }
    const put = this.db.prepare(
      "INSERT OR REPLACE INTO embeddings (hash, model, dims, vector) VALUES (?, ?, ?, ?)",
    );
    this.db.transaction(() => {
      missing.forEach((hash, i) => {
        const v = vectors[i]!;
        put.run(hash, this.embedder.model, v.length, toBlob(v));
        this.vectors.set(hash, v);
      });
    })();
  }
}

function toBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** Copies out of the row buffer: its offset need not be 4-byte aligned for a Float32Array. */
function fromBlob(buf: Buffer): Float32Array {
  const copy = new Uint8Array(buf.byteLength);
  copy.set(buf);
  return new Float32Array(copy.buffer);
}
