import path from "node:path";
import { baseUrlOf, isHttpUrl, nonEmpty } from "../config/base-url.js";
import type { RecallOptions } from "../config/run-settings.js";
import type { Millis } from "../engine/types.js";
import { UsageError } from "../errors/run-errors.js";
import {
  dropIndexFile,
  INDEX_FILE,
  openRecallIndex,
  type RecallHealth,
  type RecallIndex,
  type RecallIndexOptions,
  type SearchOptions,
} from "../memory/recall/index.js";
import type { RecallAnswer } from "../strategy/types.js";

// How recall searches: run settings (src/config), recorded in config.json and index.sqlite.

/** ctx.recall() was called in a run with embeddings: hybrid recall cannot answer synchronously. */
export class SyncRecallError extends Error {
  override readonly name = "SyncRecallError";
}

/**
 * A run's recall: the versioned index of its memory (index.sqlite in the run directory), opened
 * at the first memory write or search and told of every write, so each recall answers from the
 * memory exactly as it stood and records that state's write sequence. `finish` syncs it once
 * more for `agenticbt recall` and reports its health.
 */
export class RunRecall {
  private index: RecallIndex | null = null;

  /**
   * `replayOf`: the recorded run a replay re-runs. Its index.sqlite holds every vector the
   * recording used, so hybrid recall is answered from it with no network call.
   */
  constructor(
    private readonly dir: string,
    private readonly options: RecallOptions,
    private readonly replayOf: string | null = null,
    private readonly env: Readonly<Record<string, string | undefined>> = process.env,
    /** Bar times of the run's data: the trading days the journal tier counts. */
    private readonly barTimes: ArrayLike<Millis> = [],
    /** The memory policy in force at a simulated time: its recall cap and journal window. */
    private readonly policyAt: ((asOf: Millis) => RecallPolicy) | null = null,
  ) {}

  /** The agent's search at `asOf` under the policy then in force. */
  private agentSearch(limit: number, asOf: Millis, seq: number): SearchOptions {
    const policy = this.policyAt?.(asOf) ?? null;
    return {
      ...recallSearchOptions(this.options, limit, asOf, policy),
      seq,
    };
  }

  /** A memory write was just made to `path` at simulated time `at`: index it as the next state. */
  written(path: string, at: Millis): void {
    this.withIndex((index) => index.syncWrite([path], at));
  }

  /** Keyword (BM25) recall, for code strategies' synchronous ctx.recall. */
  searchSync(query: string, limit: number, asOf: Millis): RecallAnswer {
    if (this.options.embedModel !== null) {
      throw new SyncRecallError(
        "ctx.recall() is synchronous and recalls by keywords only, but this run has " +
          "--embed-model set for hybrid recall. Use `await ctx.recallAsync(query, limit)` in the " +
          "strategy, or drop --embed-model.",
      );
    }
    return this.withIndex((index) => {
      const seq = index.seq();
      return { citations: index.searchSync(query, this.agentSearch(limit, asOf, seq)), seq };
    });
  }

  /** Recall as the agent sees it at `asOf`: hybrid when embeddings are configured. */
  async search(query: string, limit: number, asOf: Millis): Promise<RecallAnswer> {
    const answer = async (index: RecallIndex) => {
      const seq = index.seq();
      return { citations: await index.search(query, this.agentSearch(limit, asOf, seq)), seq };
    };
    const index = this.open();
    try {
      return await answer(index);
    } catch (err) {
      if (!this.rebuildIfDamaged(index, err)) throw err;
      return answer(this.open());
    }
  }

  /** Syncs the index with the memory as the run left it; its health goes into result.json. */
  finish(): RecallHealth {
    try {
      // Opening syncs; an index already open syncs what the run wrote since its last search.
      // An index deleted or replaced after the run's last write is rebuilt for `recall` too.
      if (this.index?.damaged()) this.rebuildIfDamaged(this.index, null);
      if (this.index === null) return this.open().health();
      this.index.sync();
      return this.index.health();
    } catch (err) {
      // A broken derived index must not fail a finished backtest: `recall` rebuilds it later.
      return {
        files: 0,
        chunks: 0,
        lastSync: null,
        errors: [(err as Error).message ?? String(err)],
        embeddings: null,
      };
    } finally {
      this.close();
    }
  }

  close(): void {
    this.index?.close();
    this.index = null;
  }

  /**
   * Runs `use` on the index; when the index file turns out deleted, replaced or damaged under
   * the run, it is rebuilt from the memory files (it is derived) and `use` runs once more.
   */
  private withIndex<T>(use: (index: RecallIndex) => T): T {
    const index = this.open();
    try {
      return use(index);
    } catch (err) {
      if (!this.rebuildIfDamaged(index, err)) throw err;
      return use(this.open());
    }
  }

  /** Drops `index` when it is damaged (see RecallIndex.damaged), so the next open rebuilds it. */
  private rebuildIfDamaged(index: RecallIndex, err: unknown): boolean {
    if (!index.damaged(err)) return false;
    dropIndexFile(index);
    if (this.index === index) this.index = null;
    return true;
  }

  /**
   * Opened at the first write or recall, building from the memory files (manual, presets,
   * copies). Every later write is indexed by `written`, so no search needs to stat the files.
   */
  private open(): RecallIndex {
    if (this.index === null) {
      const index = openRecallIndex(this.dir, {
        ...recallIndexOptions(this.options, this.env, this.replayOf),
        autoSync: false,
      });
      index.setTradingDays(this.barTimes);
      index.markRecorded();
      this.index = index;
    }
    return this.index;
  }
}

/**
 * How the index of a run with these settings is opened: its weights, and for hybrid recall the
 * embeddings endpoint (key from $OPENAI_API_KEY). A replay takes the recorded run's vectors and
 * never calls the endpoint.
 */
export function recallIndexOptions(
  o: RecallOptions,
  env: Readonly<Record<string, string | undefined>>,
  replayOf: string | null = null,
): RecallIndexOptions {
  const weights = { fts: o.weightFts, vec: o.weightVec };
  if (o.embedModel === null) return { weights };
  const apiKey = nonEmpty(env.OPENAI_API_KEY);
  return {
    weights,
    embeddings: {
      model: o.embedModel,
      baseURL: embedBaseUrl(o, env),
      ...(apiKey === undefined ? {} : { apiKey }),
      offline: replayOf !== null,
    },
    ...(replayOf === null ? {} : { seedVectorsFrom: path.join(replayOf, INDEX_FILE) }),
  };
}

/** The two policy knobs recall obeys: `retrieve_limit` caps results, `recent_days` sets the
 * journal tier. */
export interface RecallPolicy {
  retrieve_limit: number;
  recent_days: number;
}

/**
 * A search as the agent makes it at `asOf` (null: the user's view of all memory): the run's
 * minimum score (null: the index's default for the mode) and, with `asOf`, its half-life and the
 * memory policy then in force (null: none, the defaults).
 */
export function recallSearchOptions(
  o: RecallOptions,
  limit: number,
  asOf: Millis | null,
  policy: RecallPolicy | null = null,
): SearchOptions {
  const search: SearchOptions = { limit };
  if (o.minScore !== null) search.minScore = o.minScore;
  if (o.perSourceCap !== null) search.perSourceCap = o.perSourceCap;
  if (asOf !== null) {
    search.asOf = asOf;
    if (o.halfLifeDays !== null) search.halfLifeDays = o.halfLifeDays;
    if (policy !== null) {
      search.limit = Math.min(limit, policy.retrieve_limit);
      search.journalDays = policy.recent_days;
    }
  }
  return search;
}

/** Where embeddings come from: --embed-base-url, then $OPENAI_BASE_URL, then OpenAI. */
function embedBaseUrl(o: RecallOptions, env: Readonly<Record<string, string | undefined>>): string {
  return baseUrlOf(o.embedBaseURL, env);
}

/** Options that cannot work together are bad usage, found before a run directory exists. */
export function checkRecallOptions(o: RecallOptions): void {
  if (o.embedModel === null && o.embedBaseURL !== null) {
    throw new UsageError(
      "--embed-base-url is set but --embed-model is not: name the embeddings model too " +
        "(e.g. --embed-model text-embedding-3-small), or drop --embed-base-url for keyword recall.",
    );
  }
  if (o.embedBaseURL !== null && !isHttpUrl(o.embedBaseURL)) {
    throw new UsageError(
      `--embed-base-url ${JSON.stringify(o.embedBaseURL)} is not an http(s) URL; pass one like ` +
        "http://localhost:11434/v1 or https://api.openai.com/v1.",
    );
  }
  if (o.embedModel !== null && o.weightFts + o.weightVec <= 0) {
    throw new UsageError("--recall-weights must not both be 0 (e.g. 0.5,0.5).");
  }
}
