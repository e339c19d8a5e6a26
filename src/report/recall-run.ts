import path from "node:path";
import { z } from "zod";
import {
  openRecallIndex,
  type RecallIndexOptions,
  type SearchOptions,
} from "../memory/recall/index.js";
import { UsageError } from "../runner/run-errors.js";
import { embedBaseUrl } from "../runner/run-recall.js";
import { labelTime, parseAt } from "./decisions-at.js";
import { RunReadError } from "./report-error.js";
import { readConfig } from "./run-record.js";
import type { RecallOutput } from "./schemas.js";

export interface RecallRunOptions {
  limit: number;
  /** `--as-of`: answer as the agent's memory_recall would have at that time. */
  asOf?: string;
  /** Recall by keywords even when the run recalled with embeddings (no network). */
  keywordsOnly?: boolean;
  /** Where OPENAI_API_KEY and OPENAI_BASE_URL are read (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
}

// config.json's `recall` (RecallOptions); runs written before it existed lack it.
const recallConfigSchema = z.object({
  embedModel: z.string().nullable(),
  embedBaseURL: z.string().nullable(),
  weightFts: z.number().nonnegative(),
  weightVec: z.number().nonnegative(),
  // null: the index default (0.1 when hybrid, 0 for keywords alone).
  minScore: z.number().min(0).max(1).nullable(),
  halfLifeDays: z.number().positive().nullable(),
});
type RecallConfig = z.infer<typeof recallConfigSchema>;

/**
 * `recall <run> "<query>"` against a finished run. Without `asOf`: all of the run's memory, no
 * decay (the user's view). With it: what the agent's memory_recall returned at that simulated
 * time (nothing written later, the decay tiers, the run's half-life and minimum score). Hybrid
 * when the run recalled with embeddings, unless `keywordsOnly`. An embeddings failure throws
 * RecallEmbeddingError (exit code 1); bad input throws with exit code 2.
 */
export async function recallRun(
  dir: string,
  query: string,
  o: RecallRunOptions,
): Promise<RecallOutput> {
  if (query.trim() === "") {
    throw new UsageError('The query is empty: pass the words to look for, e.g. "stop loss".');
  }
  const asOf = o.asOf === undefined ? null : parseAt(o.asOf, "--as-of");
  const settings = recallConfig(dir);
  const hybrid = settings?.embedModel != null && o.keywordsOnly !== true;
  const env = o.env ?? process.env;
  const indexOptions: RecallIndexOptions = {};
  if (settings !== null)
    indexOptions.weights = { fts: settings.weightFts, vec: settings.weightVec };
  if (hybrid && settings?.embedModel) {
    const apiKey = env.OPENAI_API_KEY?.trim();
    indexOptions.embeddings = {
      model: settings.embedModel,
      baseURL: embedBaseUrl(settings, env),
      ...(apiKey ? { apiKey } : {}),
    };
  }
  // As RunRecall does in the run: a min score of 0 means the index's default for the mode.
  const search: SearchOptions = { limit: o.limit };
  if (settings !== null && settings.minScore !== null) search.minScore = settings.minScore;
  if (asOf !== null) {
    search.asOf = labelTime(asOf);
    search.decay = true;
    if (settings?.halfLifeDays != null) search.halfLifeDays = settings.halfLifeDays;
  }
  const index = openRecallIndex(dir, indexOptions);
  try {
    const citations = await index.search(query, search);
    return {
      run: { id: path.basename(dir), dir },
      query,
      asOf,
      mode: hybrid ? "hybrid" : "keywords",
      citations,
      index: index.health(),
    };
  } finally {
    index.close();
  }
}

/** config.json's recall settings, or null for a run written before they were recorded. */
function recallConfig(dir: string): RecallConfig | null {
  const raw = readConfig(dir).recall;
  if (raw === undefined || raw === null) return null;
  const parsed = recallConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `recall.${issue.path.join(".")}: ${issue.message}` : "recall";
    throw new RunReadError(
      `${path.join(dir, "config.json")} has recall settings this version cannot read (${where}).`,
    );
  }
  return parsed.data;
}
