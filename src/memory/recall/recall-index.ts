import fs from "node:fs";
import path from "node:path";
import type Database from "better-sqlite3";
import { DEFAULT_HYBRID_MIN_SCORE, DEFAULT_RECALL_OPTIONS } from "../../config/run-settings.js";
import type { Millis } from "../../engine/types.js";
import type { Citation } from "../../strategy/types.js";
import { refuseSymlink } from "../../util/no-follow.js";
import { DAY_MS, startOfDay } from "../sim-time.js";
import { bm25ToScore } from "./bm25-score.js";
import { ChangeProbe } from "./change-probe.js";
import { eligibleTest, JOURNAL_RECALL_DAYS } from "./eligibility.js";
import { type EmbeddingsConfig, httpEmbedder } from "./embeddings.js";
import { isIndexDamage, openIndexDb, removeIndexFiles } from "./index-db.js";
import { RecallIndexError, RecallInputError } from "./recall-errors.js";
import type { RecallHealth } from "./recall-health.js";
import { snippet } from "./snippet.js";
import { currentSeq, type SyncReport, syncIndex } from "./sync-index.js";
import { type ChunkMeta, TermIndex, visibleAt } from "./term-index.js";
import { queryTokens } from "./tokenize.js";
import { VectorStore } from "./vector-search.js";

export type { RecallHealth };

export const INDEX_FILE = "index.sqlite";
export const DEFAULT_LIMIT = 5;
export { DEFAULT_HYBRID_MIN_SCORE };
export const DEFAULT_WEIGHTS: HybridWeights = {
  fts: DEFAULT_RECALL_OPTIONS.weightFts,
  vec: DEFAULT_RECALL_OPTIONS.weightVec,
};
/** How many top hits each side (keywords, vectors) brings into the hybrid merge, at least. */
const HYBRID_CANDIDATES = 50;
/** Okapi BM25 parameters (the values FTS5 uses). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

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
  /**
   * The write sequence to answer at: the memory exactly as it stood then (versions, and the
   * BM25 statistics of what was visible). Default: the newest, the memory as it is.
   */
  seq?: number;
  /** The simulated now: nothing dated after it is returned. Absent: the user's view. */
  asOf?: Millis;
  /** The decay tiers (docs/memory-recall.md): default true with `asOf`, never without it. */
  decay?: boolean;
  /**
   * Also multiply scores by 0.5^(age / halfLifeDays), age measured from `asOf` (needs it);
   * independent of `decay`, which is about the tiers. Undated text (manual, presets) does not age.
   */
  halfLifeDays?: number;
  /** Hits scoring below this are dropped (default: 0 for BM25, 0.1 for hybrid). */
  minScore?: number;
  /**
   * At most this many citations of one source (playbook, journal, note, review); the best of the
   * others fill the limit. Absent: no cap.
   */
  perSourceCap?: number;
  /**
   * Trading days of journal recallable in full under the decay tiers (the memory policy's
   * `recent_days`); default JOURNAL_RECALL_DAYS.
   */
  journalDays?: number;
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

/**
 * Closes a damaged index (see RecallIndex.damaged) and removes its files, so the next open builds
 * it again from the memory files, as any derived index.
 */
export function dropIndexFile(index: RecallIndex): void {
  try {
    index.close();
  } catch {
    // Closing a database whose file went away may fail; its files are removed next either way.
  }
  removeIndexFiles(index.file);
}

/** Opens (creating if needed) the recall index of a run directory and syncs it. */
export function openRecallIndex(runDir: string, opts: RecallIndexOptions = {}): RecallIndex {
  return new RecallIndex(path.resolve(runDir), opts);
}

/**
 * BM25 recall over a run's memory files, optionally hybrid with embeddings, answering as of a
 * simulated time and of a write sequence (the memory exactly as it stood then: see sync-index).
 * The index is derived: deleting it costs a rebuild, with the history the files record.
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
  /** Trading days as sorted day numbers; undefined until loaded, null when none are known. */
  private tradingDays: Int32Array | null | undefined = undefined;
  private readonly probe: ChangeProbe;
  private readonly statements = new Map<string, Database.Statement>();
  private readonly terms: TermIndex;
  /** The inode of the file opened: another one at the path means it was replaced. */
  private readonly inode: bigint;

  constructor(runDir: string, opts: RecallIndexOptions) {
    this.runDir = runDir;
    this.file = opts.file ?? path.join(runDir, INDEX_FILE);
    this.weights = checkWeights(opts.weights);
    this.autoSync = opts.autoSync ?? true;
    this.probe = new ChangeProbe(runDir);
    const embedder = opts.embeddings === undefined ? null : httpEmbedder(opts.embeddings);
    this.db = openIndexDb(this.file);
    this.inode = fs.statSync(this.file, { bigint: true }).ino;
    this.terms = new TermIndex(this.db);
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

  /**
   * Indexes a write just made to `paths` at simulated time `at` as the next write sequence, so a
   * later recall, and `recall --as-of` for it, see exactly the memory as it stood.
   */
  syncWrite(paths: readonly string[], at: Millis): SyncReport {
    if (!Number.isFinite(at)) throw new RecallInputError(`at must be a time in ms, got ${at}.`);
    const report = syncIndex(this.db, this.runDir, { only: paths, at });
    this.lastSync = new Date().toISOString();
    this.lastErrors = report.errors;
    return report;
  }

  /** Recall; hybrid when embeddings are configured (and then fails loudly if they fail). */
  async search(query: string, opts: SearchOptions = {}): Promise<Citation[]> {
    const plan = this.plan(query, opts);
    if (plan === null) return [];
    if (this.vectors === null) return this.rank(plan, this.keywordHits(plan), null);
    const fts = this.keywordScores(plan, Math.max(HYBRID_CANDIDATES, plan.limit * 4));
    const eligible: { id: number; textHash: string }[] = [];
    for (const c of this.terms.chunks()) if (plan.eligible(c)) eligible.push(c);
    const similarity = await this.vectors.similarities(query, eligible);
    const top = [...similarity]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, Math.max(HYBRID_CANDIDATES, plan.limit * 4));
    const missing = top.map(([id]) => id).filter((id) => !fts.has(id));
    for (const [id, bm25] of this.keywordScores(plan, null, missing)) fts.set(id, bm25);
    // Union of both top lists; each candidate gets both of its scores (0 when it has none).
    const candidates = new Map<number, { fts: number; vec: number }>();
    for (const id of [...fts.keys(), ...top.map(([id]) => id)]) {
      const bm25 = fts.get(id);
      candidates.set(id, {
        fts: bm25 === undefined ? 0 : bm25ToScore(-bm25),
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
    return plan === null ? [] : this.rank(plan, this.keywordHits(plan), null);
  }

  /** The newest write sequence: what a recall now would search. */
  seq(): number {
    return currentSeq(this.db);
  }

  /**
   * The write sequence just before the first write stamped at or after `t`: the memory as a
   * decision at the start of the bar at `t` saw it.
   */
  seqBefore(t: Millis): number {
    const row = this.stmt("SELECT min(seq) AS s FROM seqs WHERE at >= ?").get(t) as {
      s: number | null;
    };
    return row.s === null ? this.seq() : row.s - 1;
  }

  /**
   * Whether this is the index a run recorded (markRecorded, or writes indexed by syncWrite), so
   * the sequence numbers in decisions.jsonl name its states. An index rebuilt from the files
   * numbers its states by simulated time instead.
   */
  recordedLive(): boolean {
    return (
      this.db.prepare("SELECT 1 FROM meta WHERE key = 'recorded_by_run'").get() !== undefined ||
      this.db.prepare("SELECT 1 FROM seqs WHERE live = 1 LIMIT 1").get() !== undefined
    );
  }

  /** Marks this index as the one a run searches and records sequences of (see recordedLive). */
  markRecorded(): void {
    this.db
      .prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('recorded_by_run', '1')")
      .run();
  }

  /**
   * The days that had bars, for the journal tier; replaces any stored before. Kept as one sorted
   * blob of day numbers, so a million-bar run stores it at once rather than as a million rows.
   */
  setTradingDays(times: ArrayLike<Millis>): void {
    const days = dayNumbers(times);
    if (days.length === 0) {
      // No days known: the journal days stand in (see tierBounds).
      this.db.prepare("DELETE FROM meta WHERE key = 'trading_days'").run();
      this.db.exec("DELETE FROM trading_days");
      this.tradingDays = null;
      return;
    }
    this.db
      .prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('trading_days', ?)")
      .run(Buffer.from(days.buffer, days.byteOffset, days.byteLength));
    this.tradingDays = days;
  }

  /** Whether the index knows the trading days (setTradingDays). */
  hasTradingDays(): boolean {
    return this.loadTradingDays() !== null;
  }

  /** The stored trading days (an index written before they were a blob keeps them as rows). */
  private loadTradingDays(): Int32Array | null {
    if (this.tradingDays === undefined) {
      const row = this.stmt("SELECT value FROM meta WHERE key = 'trading_days'").get() as
        | { value: Uint8Array }
        | undefined;
      if (row !== undefined) {
        this.tradingDays = new Int32Array(new Uint8Array(row.value).buffer);
      } else {
        const rows = this.stmt("SELECT day FROM trading_days ORDER BY day").all() as {
          day: number;
        }[];
        this.tradingDays = rows.length === 0 ? null : dayNumbers(rows.map((r) => r.day));
      }
    }
    return this.tradingDays;
  }

  /** The files with at least one chunk a search with these options could return, sorted. */
  eligiblePaths(opts: Omit<SearchOptions, "limit" | "minScore" | "halfLifeDays"> = {}): string[] {
    const plan = this.plan("*", { ...opts, limit: 1 }, true);
    if (plan === null) return [];
    const paths = new Set<string>();
    for (const c of this.terms.chunks()) if (plan.eligible(c)) paths.add(c.path);
    return [...paths].sort(compareText);
  }

  health(): RecallHealth {
    const count = (sql: string): number => (this.db.prepare(sql).get() as { n: number }).n;
    const changed = this.db.prepare("SELECT value FROM meta WHERE key = 'last_change'").get() as
      | { value: string }
      | undefined;
    return {
      files: count("SELECT count(*) AS n FROM files"),
      chunks: count("SELECT count(*) AS n FROM chunks WHERE to_seq IS NULL"),
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

  /** Embedding vectors stored (whichever model; a replay or a reindex reuses them). */
  storedVectors(): number {
    return (this.db.prepare("SELECT count(*) AS n FROM embeddings").get() as { n: number }).n;
  }

  close(): void {
    this.db.close();
  }

  /**
   * Whether the index file is no longer the one this opened (deleted or replaced meanwhile), or
   * `err`, thrown by this index, says its bytes were damaged: either way, rebuild it (see
   * rebuildIndexFile).
   */
  damaged(err: unknown = null): boolean {
    if (err !== null && isIndexDamage(err)) return true;
    const st = fs.lstatSync(this.file, { bigint: true, throwIfNoEntry: false });
    return st === undefined || st.ino !== this.inode;
  }

  private plan(query: string, opts: SearchOptions, anyQuery = false): Plan | null {
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
    const perSourceCap = opts.perSourceCap ?? null;
    if (perSourceCap !== null && !(Number.isInteger(perSourceCap) && perSourceCap >= 1)) {
      throw new RecallInputError(
        `perSourceCap must be a whole number >= 1, got ${String(perSourceCap)}.`,
      );
    }
    if (this.autoSync && !this.probe.unchanged()) this.sync();
    const newest = this.seq();
    this.terms.refresh(newest);
    const seq = opts.seq ?? newest;
    if (!Number.isInteger(seq) || seq < 0 || seq > newest) {
      throw new RecallInputError(
        `seq must be a write sequence of this index (0 to ${newest}), got ${String(seq)}.`,
      );
    }
    const tokens = queryTokens(query);
    const empty = query.trim() === "" || (tokens.length === 0 && this.vectors === null);
    if (limit === 0 || (empty && !anyQuery)) return null;
    const journalDays = opts.journalDays ?? JOURNAL_RECALL_DAYS;
    if (!Number.isInteger(journalDays) || journalDays < 1) {
      throw new RecallInputError(
        `journalDays must be a whole number of days >= 1, got ${String(journalDays)}.`,
      );
    }
    const tiers = decay && asOf !== null ? this.tierBounds(seq, asOf, journalDays) : null;
    const eligible = eligibleTest({
      seq,
      asOf,
      decay,
      journalFloor: tiers?.journalFloor ?? null,
      coveredMonths: tiers?.coveredMonths ?? new Set(),
    });
    return {
      seq,
      tokens,
      limit,
      eligible,
      minScore,
      // Half-life decay is applied after the merge, so it may reorder: every match is a candidate.
      halfLifeMs: halfLife === null ? null : halfLife * DAY_MS,
      asOf,
      perSourceCap,
    };
  }

  /**
   * What the tiers need at `asOf`: midnight of the oldest journal day still recallable (the
   * `journalDays`-th last trading day up to asOf's day; null when there are fewer), and
   * the months that have a monthly review in the memory at `seq`, written by asOf. Trading days
   * come from the run's data (setTradingDays); without them, the days that have a journal stand
   * in.
   */
  private tierBounds(
    seq: number,
    asOf: Millis,
    journalDays: number,
  ): { journalFloor: Millis | null; coveredMonths: Set<string> } {
    const today = startOfDay(asOf);
    const coveredMonths = new Set<string>();
    for (const c of this.terms.monthChunks()) {
      if (c.monthFirst !== null && (c.at === null || c.at <= asOf) && visibleAt(c, seq)) {
        coveredMonths.add(c.monthFirst);
      }
    }
    const days = this.loadTradingDays();
    if (days !== null) {
      // The journalDays-th last trading day at or before today (binary search).
      const todayNumber = Math.floor(today / DAY_MS);
      let lo = 0;
      let hi = days.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((days[mid] as number) <= todayNumber) lo = mid + 1;
        else hi = mid;
      }
      const k = lo - journalDays;
      return { journalFloor: k < 0 ? null : (days[k] as number) * DAY_MS, coveredMonths };
    }
    let found = 0;
    for (const day of this.terms.journalDaysDesc()) {
      if (day > today || !this.terms.journalChunks(day).some((c) => visibleAt(c, seq))) continue;
      if (++found === journalDays) return { journalFloor: day, coveredMonths };
    }
    return { journalFloor: null, coveredMonths };
  }

  /**
   * The keyword hits a search ranks: the best `limit`, or all when the half-life may reorder or
   * a per-source cap may pass over some.
   */
  private keywordHits(plan: Plan): Map<number, number> {
    const all = plan.halfLifeMs !== null || plan.perSourceCap !== null;
    return this.keywordScores(plan, all ? null : plan.limit);
  }

  /**
   * Okapi BM25 of the eligible chunks matching any query term, over the memory as it stood at
   * the plan's sequence: N, the average length and each term's document frequency count the
   * chunks visible then (all tiers), so the score of a chunk at a past decision is what it was
   * then. Returns chunk id → BM25 (higher is better), best first (ties by path, line); `limit`
   * null returns all, `ids` restricts to those chunks. Summed term by term in query order, so
   * equal inputs give bit-identical scores.
   */
  private keywordScores(
    plan: Plan,
    limit: number | null,
    ids: readonly number[] | null = null,
  ): Map<number, number> {
    if (plan.tokens.length === 0 || (ids !== null && ids.length === 0)) return new Map();
    const stats = this.stmt("SELECT docs, tokens FROM seqs WHERE seq = ?").get(plan.seq) as
      | { docs: number; tokens: number }
      | undefined;
    if (stats === undefined || stats.docs === 0) return new Map();
    const only = ids === null ? null : new Set(ids);
    const avgdl = stats.tokens / stats.docs;
    const eligible = new Map<number, ChunkMeta | null>();
    const scores = new Map<number, number>();
    for (const term of plan.tokens) {
      const postings = this.terms.postingsOf(term);
      if (postings === undefined) continue;
      const matched: [ChunkMeta, number][] = [];
      let df = 0;
      for (let i = 0; i < postings.ids.length; i++) {
        const id = postings.ids[i]!;
        const c = this.terms.chunk(id)!;
        if (!visibleAt(c, plan.seq)) continue;
        df++;
        let ok = eligible.get(id);
        if (ok === undefined) {
          ok = (only === null || only.has(id)) && plan.eligible(c) ? c : null;
          eligible.set(id, ok);
        }
        if (ok !== null) matched.push([ok, postings.tfs[i]!]);
      }
      const idf = idfOf(stats.docs, df);
      for (const [c, tf] of matched) {
        const norm = BM25_K1 * (1 - BM25_B + (BM25_B * c.len) / avgdl);
        scores.set(c.id, (scores.get(c.id) ?? 0) + (idf * tf * (BM25_K1 + 1)) / (tf + norm));
      }
    }
    let entries = [...scores];
    if (limit !== null && entries.length > limit) {
      // Only what can make the top `limit` (ties at the cut included) needs the full ordering.
      const sorted = Float64Array.from(scores.values()).sort();
      const cut = limit === 0 ? Number.POSITIVE_INFINITY : sorted[sorted.length - limit]!;
      entries = entries.filter(([, x]) => x >= cut);
    }
    const ranked = entries.sort(([a, x], [b, y]) => {
      if (x !== y) return y - x;
      const ca = this.terms.chunk(a)!;
      const cb = this.terms.chunk(b)!;
      return compareText(ca.path, cb.path) || ca.startLine - cb.startLine;
    });
    return new Map(limit === null ? ranked : ranked.slice(0, limit));
  }

  /** Prepared statements, compiled once per SQL text. */
  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (s === undefined) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
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
    if (bm25 !== null) for (const [id, b] of bm25) scores.set(id, bm25ToScore(-b));
    if (hybrid !== null) {
      const total = this.weights.fts + this.weights.vec;
      for (const [id, s] of hybrid) {
        scores.set(id, (this.weights.fts * s.fts + this.weights.vec * s.vec) / total);
      }
    }
    for (const [id, s] of scores) if (!(s > 0) || s < plan.minScore) scores.delete(id);
    if (scores.size === 0) return [];
    const rows = this.stmt(
      `SELECT id, path, source, start_line, end_line, text, at FROM chunks
         WHERE id IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify([...scores.keys()])) as ChunkRow[];
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
    return capped(hits, plan).map(({ row, score }) => ({
      path: row.path,
      startLine: row.start_line,
      endLine: row.end_line,
      snippet: snippet(row.text, plan.tokens),
      score,
      source: row.source,
    }));
  }
}

/** The best `limit` hits, at most `perSourceCap` of any one source. */
function capped<T extends { row: ChunkRow }>(hits: T[], plan: Plan): T[] {
  const cap = plan.perSourceCap;
  if (cap === null) return hits.slice(0, plan.limit);
  const taken = new Map<string, number>();
  const out: T[] = [];
  for (const hit of hits) {
    if (out.length >= plan.limit) break;
    const n = taken.get(hit.row.source) ?? 0;
    if (n >= cap) continue;
    taken.set(hit.row.source, n + 1);
    out.push(hit);
  }
  return out;
}

interface Plan {
  seq: number;
  tokens: string[];
  limit: number;
  eligible: (c: ChunkMeta) => boolean;
  minScore: number;
  halfLifeMs: number | null;
  asOf: Millis | null;
  perSourceCap: number | null;
}

/** BM25's inverse document frequency, floored at 1e-6 (as FTS5 does) so a match never scores 0. */
function idfOf(docs: number, df: number): number {
  const idf = Math.log((docs - df + 0.5) / (df + 0.5));
  return idf > 0 ? idf : 1e-6;
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

/** Sorted distinct UTC day numbers of timestamps (bar times arrive sorted: one pass). */
function dayNumbers(times: ArrayLike<Millis>): Int32Array {
  const out = new Int32Array(times.length);
  let n = 0;
  let sorted = true;
  for (let i = 0; i < times.length; i++) {
    const day = Math.floor((times[i] as number) / DAY_MS);
    if (n > 0 && day === out[n - 1]) continue;
    if (n > 0 && day < (out[n - 1] as number)) sorted = false;
    out[n++] = day;
  }
  if (sorted) return out.slice(0, n);
  const all = out.slice(0, n).sort();
  return all.filter((d, i) => i === 0 || d !== all[i - 1]);
}
