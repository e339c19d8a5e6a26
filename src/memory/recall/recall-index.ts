import fs from "node:fs";
import path from "node:path";
import type Database from "better-sqlite3";
import type { Millis } from "../../engine/types.js";
import type { Citation } from "../../strategy/types.js";
import { refuseSymlink } from "../../util/no-follow.js";
import { DAY_MS } from "../sim-time.js";
import { bm25ToScore } from "./bm25-score.js";
import { ChangeProbe } from "./change-probe.js";
import { eligibilitySql } from "./eligibility.js";
import { type EmbeddingsConfig, httpEmbedder } from "./embeddings.js";
import { openIndexDb } from "./index-db.js";
import { RecallIndexError, RecallInputError } from "./recall-errors.js";
import { snippet } from "./snippet.js";
import { type SyncReport, syncIndex } from "./sync-index.js";
import { matchExpression, queryTokens } from "./tokenize.js";
import { VectorStore } from "./vector-search.js";

export const INDEX_FILE = "index.sqlite";
export const DEFAULT_LIMIT = 5;
/** Hybrid only: below this merged score a hit is noise (every chunk has some cosine). */
export const DEFAULT_HYBRID_MIN_SCORE = 0.1;
export const DEFAULT_WEIGHTS: HybridWeights = { fts: 0.5, vec: 0.5 };
/** How many top hits each side (keywords, vectors) brings into the hybrid merge, at least. */
const HYBRID_CANDIDATES = 50;

export interface HybridWeights {
  fts: number;
  vec: number;
}

export interface RecallIndexOptions {
  /** Hybrid recall (V2). Without it recall is BM25 alone and does no network I/O. */
  embeddings?: EmbeddingsConfig;
  /** Merge weights, normalised to sum 1 (default 0.5 / 0.5). */
  weights?: Partial<HybridWeights>;
  /**
   * Sync before a search when the memory may have changed (default true), so recall never misses
   * what was just written. The check costs four stats (see ChangeProbe); in-place edits made
   * outside MemoryWorkspace are found by an explicit sync().
   */
  autoSync?: boolean;
  /** Where the index lives (default `<runDir>/index.sqlite`). */
  file?: string;
  /**
   * Another index file whose vectors are copied in when this one opens (a missing file is
   * ignored): a replay starts from the recorded run's embeddings and needs no endpoint.
   */
  seedVectorsFrom?: string;
}

export interface SearchOptions {
  /** Most citations returned (default 5). */
  limit?: number;
  /** The simulated now: nothing dated after it is returned. Absent: the user's view. */
  asOf?: Millis;
  /** The decay tiers of SPEC §6; default true with `asOf`, never applied without it. */
  decay?: boolean;
  /**
   * Also multiply scores by 0.5^(age / halfLifeDays), age measured from `asOf` (needs it);
   * independent of `decay`, which is about the tiers. Undated text (manual, presets) does not age.
   */
  halfLifeDays?: number;
  /** Hits scoring below this are dropped (default: 0 for BM25, 0.1 for hybrid). */
  minScore?: number;
}

export interface RecallHealth {
  files: number;
  chunks: number;
  /** When the index was last synced (this process) or last changed (any process), ISO time. */
  lastSync: string | null;
  /** Problems of the last sync (unreadable files). */
  errors: string[];
  embeddings: { model: string; baseURL: string; vectors: number } | null;
}

interface ChunkRow {
  id: number;
  path: string;
  source: Citation["source"];
  start_line: number;
  end_line: number;
  text: string;
  at: number | null;
}

/** Opens (creating if needed) the recall index of a run directory and syncs it. */
export function openRecallIndex(runDir: string, opts: RecallIndexOptions = {}): RecallIndex {
  return new RecallIndex(path.resolve(runDir), opts);
}

/**
 * BM25 (FTS5) recall over a run's memory files, optionally hybrid with embeddings, answering as
 * of a simulated time. The index is derived: deleting it only costs a rebuild.
 */
export class RecallIndex {
  readonly runDir: string;
  readonly file: string;
  private readonly db: Database.Database;
  private readonly vectors: VectorStore | null;
  private readonly weights: HybridWeights;
  private readonly autoSync: boolean;
  private lastSync: string | null = null;
  private lastErrors: string[] = [];
  private readonly probe: ChangeProbe;

  constructor(runDir: string, opts: RecallIndexOptions) {
    this.runDir = runDir;
    this.file = opts.file ?? path.join(runDir, INDEX_FILE);
    this.weights = checkWeights(opts.weights);
    this.autoSync = opts.autoSync ?? true;
    this.probe = new ChangeProbe(runDir);
    const embedder = opts.embeddings === undefined ? null : httpEmbedder(opts.embeddings);
    this.db = openIndexDb(this.file);
    if (opts.seedVectorsFrom !== undefined) seedVectors(this.db, opts.seedVectorsFrom);
    this.vectors = embedder === null ? null : new VectorStore(this.db, embedder);
    this.sync();
  }

  /** Reindexes what changed since the last sync (see syncIndex): checks every file. */
  sync(): SyncReport {
    const snapshot = this.probe.take();
    const report = syncIndex(this.db, this.runDir);
    this.probe.accept(snapshot);
    this.lastSync = new Date().toISOString();
    this.lastErrors = report.errors;
    return report;
  }

  /** Recall; hybrid when embeddings are configured (and then fails loudly if they fail). */
  async search(query: string, opts: SearchOptions = {}): Promise<Citation[]> {
    const plan = this.plan(query, opts);
    if (plan === null) return [];
    if (this.vectors === null) return this.rank(plan, this.keywordHits(plan, plan.limit), null);
    const fts = this.keywordHits(plan, Math.max(HYBRID_CANDIDATES, plan.limit * 4));
    const eligible = this.db
      .prepare(`SELECT c.id AS id, c.text_hash AS textHash FROM chunks c WHERE ${plan.where}`)
      .all(plan.params) as { id: number; textHash: string }[];
    const similarity = await this.vectors.similarities(query, eligible);
    const top = [...similarity]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, Math.max(HYBRID_CANDIDATES, plan.limit * 4));
    const missing = top.map(([id]) => id).filter((id) => !fts.has(id));
    for (const [id, bm25] of this.bm25Of(plan, missing)) fts.set(id, bm25);
    // Union of both top lists; each candidate gets both of its scores (0 when it has none).
    const candidates = new Map<number, { fts: number; vec: number }>();
    for (const id of [...fts.keys(), ...top.map(([id]) => id)]) {
      const bm25 = fts.get(id);
      candidates.set(id, {
        fts: bm25 === undefined ? 0 : bm25ToScore(bm25),
        vec: similarity.get(id) ?? 0,
      });
    }
    return this.rank(plan, null, candidates);
  }

  /** BM25 recall without awaiting anything, for code strategies. Refused when hybrid is set. */
  searchSync(query: string, opts: SearchOptions = {}): Citation[] {
    if (this.vectors !== null) {
      throw new RecallInputError(
        "searchSync recalls by keywords only, but this index has embeddings configured; use " +
          "search() (async), or open the index without embeddings for synchronous recall.",
      );
    }
    const plan = this.plan(query, opts);
    return plan === null ? [] : this.rank(plan, this.keywordHits(plan, plan.limit), null);
  }

  health(): RecallHealth {
    const count = (sql: string): number => (this.db.prepare(sql).get() as { n: number }).n;
    const changed = this.db.prepare("SELECT value FROM meta WHERE key = 'last_change'").get() as
      | { value: string }
      | undefined;
    return {
      files: count("SELECT count(*) AS n FROM files"),
      chunks: count("SELECT count(*) AS n FROM chunks"),
      lastSync: this.lastSync ?? changed?.value ?? null,
      errors: [...this.lastErrors],
      embeddings:
        this.vectors === null
          ? null
          : {
              model: this.vectors.embedder.model,
              baseURL: this.vectors.embedder.baseURL,
              vectors: this.vectors.count(),
            },
    };
  }

  close(): void {
    this.db.close();
  }

  private plan(query: string, opts: SearchOptions): Plan | null {
    const limit = Math.max(0, Math.floor(opts.limit ?? DEFAULT_LIMIT));
    const asOf = opts.asOf ?? null;
    if (asOf !== null && !Number.isFinite(asOf)) {
      throw new RecallInputError(`asOf must be a time in ms, got ${String(asOf)}.`);
    }
    const decay = asOf !== null && (opts.decay ?? true);
    const halfLife = opts.halfLifeDays ?? null;
    if (halfLife !== null) {
      if (!(halfLife > 0) || !Number.isFinite(halfLife)) {
        throw new RecallInputError(
          `halfLifeDays must be a positive number of days, got ${String(halfLife)}.`,
        );
      }
      if (asOf === null) {
        throw new RecallInputError(
          "halfLifeDays needs asOf (the simulated now that ages are measured from); pass asOf, " +
            "or drop halfLifeDays for the user's view without decay.",
        );
      }
    }
    const minScore = opts.minScore ?? (this.vectors === null ? 0 : DEFAULT_HYBRID_MIN_SCORE);
    if (!Number.isFinite(minScore)) {
      throw new RecallInputError(`minScore must be a number in [0, 1], got ${String(minScore)}.`);
    }
    if (this.autoSync && !this.probe.unchanged()) this.sync();
    const tokens = queryTokens(query);
    if (limit === 0 || query.trim() === "" || (tokens.length === 0 && this.vectors === null)) {
      return null;
    }
    const { where, params } = eligibilitySql({ asOf, decay });
    return {
      tokens,
      limit,
      where,
      params,
      minScore,
      // Half-life decay is applied after the merge, so it may reorder: every match is a candidate.
      halfLifeMs: halfLife === null ? null : halfLife * DAY_MS,
      asOf,
    };
  }

  /** Eligible chunks matching the query, best BM25 first: chunk id → bm25 (lower is better). */
  private keywordHits(plan: Plan, limit: number): Map<number, number> {
    if (plan.tokens.length === 0) return new Map();
    const rows = this.db
      .prepare(
        `SELECT c.id AS id, bm25(chunks_fts) AS bm25
         FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid
         WHERE chunks_fts MATCH @match AND ${plan.where}
         ORDER BY bm25, c.path, c.start_line
         ${plan.halfLifeMs === null ? "LIMIT @limit" : ""}`,
      )
      .all({ ...plan.params, match: matchExpression(plan.tokens), limit }) as {
      id: number;
      bm25: number;
    }[];
    return new Map(rows.map((r) => [r.id, r.bm25]));
  }

  /** BM25 of given chunks (a chunk's BM25 does not depend on which others are asked for). */
  private bm25Of(plan: Plan, ids: readonly number[]): Map<number, number> {
    if (plan.tokens.length === 0 || ids.length === 0) return new Map();
    const rows = this.db
      .prepare(
        `SELECT rowid AS id, bm25(chunks_fts) AS bm25 FROM chunks_fts
         WHERE chunks_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))`,
      )
      .all(matchExpression(plan.tokens), JSON.stringify(ids)) as { id: number; bm25: number }[];
    return new Map(rows.map((r) => [r.id, r.bm25]));
  }

  /**
   * Final scores: BM25 mapped to (0, 1), or the weighted hybrid merge; the minimum score; the
   * optional half-life; then best first, ties by path and line so results are reproducible.
   */
  private rank(
    plan: Plan,
    bm25: Map<number, number> | null,
    hybrid: Map<number, { fts: number; vec: number }> | null,
  ): Citation[] {
    const scores = new Map<number, number>();
    if (bm25 !== null) for (const [id, b] of bm25) scores.set(id, bm25ToScore(b));
    if (hybrid !== null) {
      const total = this.weights.fts + this.weights.vec;
      for (const [id, s] of hybrid) {
        scores.set(id, (this.weights.fts * s.fts + this.weights.vec * s.vec) / total);
      }
    }
    for (const [id, s] of scores) if (!(s > 0) || s < plan.minScore) scores.delete(id);
    if (scores.size === 0) return [];
    const rows = this.db
      .prepare(
        `SELECT id, path, source, start_line, end_line, text, at FROM chunks
         WHERE id IN (SELECT value FROM json_each(?))`,
      )
      .all(JSON.stringify([...scores.keys()])) as ChunkRow[];
    const hits = rows.map((row) => {
      let score = scores.get(row.id)!;
      if (plan.halfLifeMs !== null && plan.asOf !== null && row.at !== null) {
        score *= 0.5 ** (Math.max(0, plan.asOf - row.at) / plan.halfLifeMs);
      }
      return { row, score };
    });
    hits.sort(
      (a, b) =>
        b.score - a.score ||
        compareText(a.row.path, b.row.path) ||
        a.row.start_line - b.row.start_line,
    );
    return hits.slice(0, plan.limit).map(({ row, score }) => ({
      path: row.path,
      startLine: row.start_line,
      endLine: row.end_line,
      snippet: snippet(row.text, plan.tokens),
      score,
      source: row.source,
    }));
  }
}

interface Plan {
  tokens: string[];
  limit: number;
  where: string;
  params: Record<string, number>;
  minScore: number;
  halfLifeMs: number | null;
  asOf: Millis | null;
}

function seedVectors(db: Database.Database, from: string): void {
  refuseSymlink(from);
  if (!fs.existsSync(from)) return;
  try {
    db.prepare("ATTACH DATABASE ? AS seed").run(from);
  } catch (err) {
    throw new RecallIndexError(
      `Could not read the recorded recall index ${from}: ${(err as Error).message}. ` +
        "Replays take recorded embeddings from it; restore it or re-run without --replay.",
    );
  }
  try {
    db.exec(
      "INSERT OR IGNORE INTO embeddings (hash, model, dims, vector) " +
        "SELECT hash, model, dims, vector FROM seed.embeddings",
    );
  } finally {
    db.exec("DETACH DATABASE seed");
  }
}

function checkWeights(weights: Partial<HybridWeights> | undefined): HybridWeights {
  const w = { ...DEFAULT_WEIGHTS, ...weights };
  const ok = (x: number) => Number.isFinite(x) && x >= 0;
  if (!ok(w.fts) || !ok(w.vec) || w.fts + w.vec <= 0) {
    throw new RecallInputError(
      `Hybrid weights must be non-negative with a positive sum, got fts=${w.fts} vec=${w.vec}.`,
    );
  }
  return w;
}

/** Code-unit order, so the tie-break does not depend on the machine's locale. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
