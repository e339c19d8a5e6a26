import type Database from "better-sqlite3";
import type { Millis } from "../../engine/types.js";
import type { DecayTier } from "./memory-sources.js";

/** What search needs of a chunk without reading its text: where, when, which tier, its size. */
export interface ChunkMeta {
  id: number;
  path: string;
  startLine: number;
  textHash: string;
  /** Tokens in the chunk (BM25's document length). */
  len: number;
  fromSeq: number;
  /** null: still current. */
  toSeq: number | null;
  at: Millis | null;
  tier: DecayTier;
  tierAt: Millis | null;
  monthFirst: string | null;
  monthLast: string | null;
}

interface Postings {
  ids: number[];
  tfs: number[];
}

interface ChunkRow {
  id: number;
  path: string;
  start_line: number;
  text_hash: string;
  len: number;
  from_seq: number;
  to_seq: number | null;
  at: number | null;
  tier: DecayTier;
  tier_at: number | null;
  month_first: string | null;
  month_last: string | null;
  tokens: string;
}

/**
 * The index's chunks and their term frequencies held in memory, so BM25 over the chunks visible
 * at any write sequence (document frequencies included) costs a walk over the query terms'
 * postings, not a SQL scan. Loaded once, then refreshed with what later syncs added or ended:
 * chunk rows are only ever inserted, and only their to_seq is ever set.
 */
export class TermIndex {
  private readonly byId = new Map<number, ChunkMeta>();
  private readonly postings = new Map<string, Postings>();
  /** Monthly review chunks, and journal chunks by day (the tiers' bounds need only these). */
  private readonly months: ChunkMeta[] = [];
  private readonly journalDays = new Map<number, ChunkMeta[]>();
  private sortedDays: number[] | null = null;
  private loadedId = 0;
  private loadedSeq = 0;

  constructor(private readonly db: Database.Database) {}

  /** Brings the memory copy up to the index's newest sequence `seq`. */
  refresh(seq: number): void {
    if (seq === this.loadedSeq) return;
    const rows = this.db
      .prepare(
        `SELECT id, path, start_line, text_hash, len, from_seq, to_seq, at, tier, tier_at,
           month_first, month_last, tokens
         FROM chunks WHERE id > ? ORDER BY id`,
      )
      .all(this.loadedId) as ChunkRow[];
    const ended = this.db
      .prepare("SELECT id, to_seq FROM chunks WHERE to_seq > ? AND id <= ?")
      .all(this.loadedSeq, this.loadedId) as { id: number; to_seq: number }[];
    for (const e of ended) {
      const meta = this.byId.get(e.id);
      if (meta !== undefined) meta.toSeq = e.to_seq;
    }
    for (const r of rows) {
      const meta: ChunkMeta = {
        id: r.id,
        path: r.path,
        startLine: r.start_line,
        textHash: r.text_hash,
        len: r.len,
        fromSeq: r.from_seq,
        toSeq: r.to_seq,
        at: r.at,
        tier: r.tier,
        tierAt: r.tier_at,
        monthFirst: r.month_first,
        monthLast: r.month_last,
      };
      this.byId.set(r.id, meta);
      if (meta.tier === "month") this.months.push(meta);
      if (meta.tier === "journal" && meta.tierAt !== null) {
        const day = this.journalDays.get(meta.tierAt);
        if (day === undefined) {
          this.journalDays.set(meta.tierAt, [meta]);
          this.sortedDays = null;
        } else day.push(meta);
      }
      const tf = new Map<string, number>();
      for (const t of r.tokens === "" ? [] : r.tokens.split(" ")) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [term, n] of tf) {
        let p = this.postings.get(term);
        if (p === undefined) {
          p = { ids: [], tfs: [] };
          this.postings.set(term, p);
        }
        p.ids.push(r.id);
        p.tfs.push(n);
      }
      this.loadedId = r.id;
    }
    this.loadedSeq = seq;
  }

  chunk(id: number): ChunkMeta | undefined {
    return this.byId.get(id);
  }

  chunks(): IterableIterator<ChunkMeta> {
    return this.byId.values();
  }

  /** Chunks of monthly reviews (all versions). */
  monthChunks(): readonly ChunkMeta[] {
    return this.months;
  }

  /** Days (midnights) that have journal chunks in any version, newest first. */
  journalDaysDesc(): readonly number[] {
    this.sortedDays ??= [...this.journalDays.keys()].sort((a, b) => b - a);
    return this.sortedDays;
  }

  /** The journal chunks of a day (all versions). */
  journalChunks(day: number): readonly ChunkMeta[] {
    return this.journalDays.get(day) ?? [];
  }

  /** The chunks containing `term` (ids ascending) with its frequency in each. */
  postingsOf(term: string): Postings | undefined {
    return this.postings.get(term);
  }
}

/** Whether a chunk was part of the memory as it stood at write sequence `seq`. */
export function visibleAt(c: ChunkMeta, seq: number): boolean {
  return c.fromSeq <= seq && (c.toSeq === null || c.toSeq > seq);
}
