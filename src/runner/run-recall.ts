import path from "node:path";
import type { Millis } from "../engine/types.js";
import type { RecallHealth, RecallIndex } from "../memory/recall/index.js";
import { INDEX_FILE, openRecallIndex } from "../memory/recall/index.js";
import type { Citation } from "../strategy/types.js";
import type { RecallOptions } from "./run-config.js";
import { UsageError } from "./run-errors.js";

/** OpenAI's endpoint, when neither --embed-base-url nor OPENAI_BASE_URL says otherwise. */
const DEFAULT_EMBED_BASE_URL = "https://api.openai.com/v1";

/** ctx.recall() was called in a run with embeddings: hybrid recall cannot answer synchronously. */
export class SyncRecallError extends Error {
  override readonly name = "SyncRecallError";
}

/**
 * A run's recall: the FTS5 index of its memory (index.sqlite in the run directory), opened on the
 * first search so runs that never recall pay nothing until the end, where `finish` syncs it once
 * for `agenticbt recall` and reports its health.
 */
export class RunRecall {
  private index: RecallIndex | null = null;
  private readonly hybrid: boolean;

  /**
   * `replayOf`: the recorded run a replay re-runs. Its index.sqlite holds every vector the
   * recording used, so hybrid recall is answered from it with no network call.
   */
  constructor(
    private readonly dir: string,
    private readonly options: RecallOptions,
    private readonly replayOf: string | null = null,
    private readonly env: Readonly<Record<string, string | undefined>> = process.env,
  ) {
    this.hybrid = options.embedModel !== null;
  }

  /** Keyword (BM25) recall, for code strategies' synchronous ctx.recall. */
  searchSync(query: string, limit: number, asOf: Millis): Citation[] {
    if (this.hybrid) {
      throw new SyncRecallError(
        "ctx.recall() is synchronous and recalls by keywords only, but this run has " +
          "--embed-model set for hybrid recall. Use `await ctx.recallAsync(query, limit)` in the " +
          "strategy, or drop --embed-model.",
      );
    }
    return this.open().searchSync(query, this.searchOptions(limit, asOf));
  }

  /** Recall as the agent sees it at `asOf`: hybrid when embeddings are configured. */
  search(query: string, limit: number, asOf: Millis): Promise<Citation[]> {
    return this.open().search(query, this.searchOptions(limit, asOf));
  }

  /** Syncs the index with the memory as the run left it; its health goes into result.json. */
  finish(): RecallHealth {
    try {
      // Opening syncs; an index already open syncs what the run wrote since its last search.
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

  private open(): RecallIndex {
    if (this.index === null) {
      const o = this.options;
      this.index = openRecallIndex(this.dir, {
        weights: { fts: o.weightFts, vec: o.weightVec },
        ...(o.embedModel === null
          ? {}
          : {
              embeddings: {
                model: o.embedModel,
                baseURL: embedBaseUrl(o, this.env),
                ...(nonEmpty(this.env.OPENAI_API_KEY) ? { apiKey: this.env.OPENAI_API_KEY } : {}),
                offline: this.replayOf !== null,
              },
              ...(this.replayOf === null
                ? {}
                : { seedVectorsFrom: path.join(this.replayOf, INDEX_FILE) }),
            }),
      });
    }
    return this.index;
  }

  private searchOptions(limit: number, asOf: Millis) {
    return {
      limit,
      asOf,
      ...(this.options.minScore === null ? {} : { minScore: this.options.minScore }),
      ...(this.options.halfLifeDays === null ? {} : { halfLifeDays: this.options.halfLifeDays }),
    };
  }
}

/** Where embeddings come from: --embed-base-url, then $OPENAI_BASE_URL, then OpenAI. */
export function embedBaseUrl(
  o: RecallOptions,
  env: Readonly<Record<string, string | undefined>>,
): string {
  return nonEmpty(o.embedBaseURL) ?? nonEmpty(env.OPENAI_BASE_URL) ?? DEFAULT_EMBED_BASE_URL;
}

/** Options that cannot work together are bad usage, found before a run directory exists. */
export function checkRecallOptions(o: RecallOptions): void {
  if (o.embedModel === null && o.embedBaseURL !== null) {
    throw new UsageError(
      "--embed-base-url is set but --embed-model is not: name the embeddings model too " +
        "(e.g. --embed-model text-embedding-3-small), or drop --embed-base-url for keyword recall.",
    );
  }
  if (o.embedBaseURL !== null && !/^https?:\/\/[^/]/.test(o.embedBaseURL.trim())) {
    throw new UsageError(
      `--embed-base-url ${JSON.stringify(o.embedBaseURL)} is not an http(s) URL; pass one like ` +
        "http://localhost:11434/v1 or https://api.openai.com/v1.",
    );
  }
  if (o.embedModel !== null && o.weightFts + o.weightVec <= 0) {
    throw new UsageError("--recall-weights must not both be 0 (e.g. 0.5,0.5).");
  }
}

function nonEmpty(value: string | null | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
