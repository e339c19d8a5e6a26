import path from "node:path";
import { z } from "zod";
import {
  DEFAULT_RECALL_OPTIONS,
  RECALL_EXTRA_SOURCES,
  type RecallOptions,
} from "../config/run-settings.js";
import { RunReadError } from "../errors/report-error.js";
import { UsageError } from "../errors/run-errors.js";
import { DEFAULT_MEMORY_SYSTEM, memorySystemEntry } from "../memory/memory-registry.js";
import type { MemorySystemEntry, MemorySystemFactory } from "../memory/memory-system.js";
import { openRecallIndex, type RecallIndex } from "../memory/recall/index.js";
import { parseDayKey } from "../memory/sim-time.js";
import { runFile } from "../rundir/layout.js";
import { readTextOrNull } from "../rundir/run-files.js";
import { recallIndexOptions, recallSearchOptions } from "../rundir/run-recall.js";
import { readConfig } from "../rundir/run-record.js";
import type { RecallOutput } from "../rundir/schemas.js";
import { readDecisions } from "./decision-lines.js";
import { labelTime, parseAt } from "./decisions-at.js";
import { recordedPolicyAt } from "./recorded-policy.js";

export interface RecallRunOptions {
  limit: number;
  /** `--as-of`: answer as the agent's memory_recall would have at that time. */
  asOf?: string;
  /**
   * `--seq`: the write sequence a recorded recall saw (`recalls[].seq` in decisions.jsonl), for
   * a bar with several recalls; needs `asOf`. Default: the bar's first recorded recall.
   */
  seq?: number;
  /** Recall by keywords even when the run recalled with embeddings (no network). */
  keywordsOnly?: boolean;
  /** Where OPENAI_API_KEY and OPENAI_BASE_URL are read (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
}

// config.json's `recall` (RecallOptions); runs written before it existed lack it.
const recallConfigSchema: z.ZodType<RecallOptions> = z.object({
  embedModel: z.string().nullable(),
  embedBaseURL: z.string().nullable(),
  weightFts: z.number().nonnegative(),
  weightVec: z.number().nonnegative(),
  // null: the index default (0.1 when hybrid, 0 for keywords alone).
  minScore: z.number().min(0).max(1).nullable(),
  halfLifeDays: z.number().positive().nullable(),
  // Runs recorded before the cap and the extra sources existed had neither.
  perSourceCap: z.number().int().min(1).nullable().default(null),
  sources: z.array(z.enum(RECALL_EXTRA_SOURCES)).default([]),
});

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
  if (o.seq !== undefined && asOf === null) {
    throw new UsageError(
      "--seq names the memory state of a recorded recall and needs --as-of with that recall's " +
        "time (see `recalls` in decisions.jsonl or `agenticbt show <run> --at <date>`).",
    );
  }
  const system = await systemRecall(dir, query, o, asOf);
  if (system !== null) return system;
  const recorded = recallConfig(dir);
  const hybrid = recorded?.embedModel != null && o.keywordsOnly !== true;
  // As the run recalled (weights, minimum score, half-life); keywords alone when asked, or for a
  // run recorded before recall settings were.
  const settings: RecallOptions = {
    ...DEFAULT_RECALL_OPTIONS,
    ...recorded,
    ...(hybrid ? {} : { embedModel: null, embedBaseURL: null }),
  };
  const indexOptions = recallIndexOptions(settings, o.env ?? process.env);
  const asOfTime = asOf === null ? null : labelTime(asOf);
  // The agent's view obeys the memory policy in force then (retrieve_limit, recent_days).
  const policy = asOfTime === null ? null : recordedPolicyAt(dir, asOfTime);
  const search = recallSearchOptions(settings, o.limit, asOfTime, policy);
  const index = openRecallIndex(dir, indexOptions);
  try {
    let seq: number | null = null;
    if (asOf !== null) {
      if (!index.hasTradingDays()) index.setTradingDays(equityDays(dir));
      seq = stateAt(index, dir, asOf, o.seq);
      search.seq = seq;
    }
    const citations = await index.search(query, search);
    return {
      run: { id: path.basename(dir), dir },
      query,
      asOf,
      seq,
      mode: hybrid ? "hybrid" : "keywords",
      citations,
      index: index.health(),
    };
  } finally {
    index.close();
  }
}

/**
 * The write sequence `--as-of <label>` answers at. The index the run recorded names its states
 * by the sequences in decisions.jsonl: `seq` when given, else the first recall recorded at that
 * time label, which is exact. Otherwise (no recall at that time, or an index rebuilt from the
 * files, whose states are numbered by simulated time) the memory just before the first write
 * stamped at or after that time: what a decision at the start of that bar saw.
 */
function stateAt(index: RecallIndex, dir: string, asOf: string, seq: number | undefined): number {
  const live = index.recordedLive();
  if (seq !== undefined) {
    if (!Number.isInteger(seq) || seq < 0) {
      throw new UsageError(`--seq ${seq} is not a write sequence: pass a recorded recall's seq.`);
    }
    if (live) {
      if (seq > index.seq()) {
        throw new UsageError(
          `--seq ${seq} is after the newest write sequence of this run's index (${index.seq()}).`,
        );
      }
      return seq;
    }
  } else if (live) {
    for (const line of readDecisions(dir)) {
      if (line.time !== asOf) continue;
      const recorded = line.recalls.find((r) => r.seq !== null);
      if (recorded?.seq != null && recorded.seq <= index.seq()) return recorded.seq;
    }
  }
  return index.seqBefore(labelTime(asOf));
}

/**
 * A run of a memory system that answers recall from its own state (layered): its answer, or null
 * for files (and runs recorded before memory systems).
 */
async function systemRecall(
  dir: string,
  query: string,
  o: RecallRunOptions,
  asOf: string | null,
): Promise<RecallOutput | null> {
  const memory = readConfig(dir).memory as { system?: unknown; config?: unknown } | undefined;
  const name = typeof memory?.system === "string" ? memory.system : DEFAULT_MEMORY_SYSTEM;
  if (name === DEFAULT_MEMORY_SYSTEM) return null;
  let entry: MemorySystemEntry;
  try {
    entry = memorySystemEntry(name);
  } catch (err) {
    throw new RunReadError(`${runFile(dir, "config")}: ${(err as Error).message}`);
  }
  const factory = await entry.load();
  if (factory.recallRun === undefined) return null;
  let recordedSeq: number | null = null;
  if (asOf !== null && o.seq === undefined) {
    for (const line of readDecisions(dir)) {
      if (line.time !== asOf) continue;
      const recorded = line.recalls.find((r) => r.seq !== null);
      if (recorded?.seq != null) {
        recordedSeq = recorded.seq;
        break;
      }
    }
  }
  const policy = asOf === null ? null : recordedPolicyAt(dir, labelTime(asOf));
  let answer: ReturnType<NonNullable<MemorySystemFactory["recallRun"]>>;
  try {
    answer = factory.recallRun({
      dir,
      config: memory?.config ?? null,
      query,
      limit: o.limit,
      asOf: asOf === null ? null : labelTime(asOf),
      seq: o.seq ?? null,
      recordedSeq,
      ...(policy !== null ? { retrieveLimit: policy.retrieve_limit } : {}),
    });
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError(err.message);
    throw new RunReadError((err as Error).message);
  }
  return {
    run: { id: path.basename(dir), dir },
    query,
    asOf,
    seq: answer.seq,
    mode: name,
    citations: answer.citations,
    index: { files: 1, chunks: answer.items, lastSync: null, errors: [], embeddings: null },
  };
}

/** The days of the run's simulated bars (equity.csv), for the journal tier; [] if absent. */
export function equityDays(dir: string): number[] {
  const text = readTextOrNull(runFile(dir, "equity"));
  if (text === null) return [];
  const days = new Set<number>();
  for (const line of text.split("\n").slice(1)) {
    const day = parseDayKey(line.slice(0, 10));
    if (day !== null) days.add(day);
  }
  return [...days];
}

/** config.json's recall settings, or null for a run written before they were recorded. */
function recallConfig(dir: string): RecallOptions | null {
  const raw = readConfig(dir).recall;
  if (raw === undefined || raw === null) return null;
  const parsed = recallConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `recall.${issue.path.join(".")}: ${issue.message}` : "recall";
    throw new RunReadError(
      `${runFile(dir, "config")} has recall settings this version cannot read (${where}).`,
    );
  }
  return parsed.data;
}
