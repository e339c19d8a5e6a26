import type { Millis } from "../../engine/types.js";
import { assertNever } from "../../util/assert-never.js";
import { DEFAULT_ENTRY_TYPE, type EntryType } from "./entry-file.js";
import { reachesPast } from "./look-ahead.js";
import {
  linkedFile,
  type PersistentStore,
  type Recalled,
  type StoreEntry,
} from "./persistent-store.js";
import type { StoreLog } from "./store-log.js";

/** Auto-recall before each decision message: at most 3 entries of 500 characters (Vibe-Trading). */
export const AUTO_RECALL_LIMIT = 3;
export const AUTO_RECALL_CHARS = 500;
/** The remember tool's recall: 5 entries of 2000 characters by default (Vibe-Trading's). */
export const TOOL_RECALL_LIMIT = 5;
export const TOOL_RECALL_CHARS = 2000;

/** The run reading the store: its id and its simulated window (first and last bar). */
export interface PersistentRun {
  runId: string;
  periodStart: Millis;
  periodEnd: Millis;
}

export type RememberArgs =
  | { action: "save"; title: string; content: string; type?: EntryType; description?: string }
  | { action: "recall"; query: string; limit?: number }
  | { action: "forget"; title: string };

/** The result.json `memory.persistent` block. */
export interface PersistentStats {
  namespace: string;
  /** sha256 of the store's content when the run started (the snapshot's hash). */
  storeHash: string;
  entriesAtStart: number;
  /** Entries written by runs whose window ended after this run's start: hidden from the model. */
  lookAheadFlagged: number;
  lookAheadFiles: string[];
  indexLines: number;
  saves: number;
  forgets: number;
  recalls: number;
  autoRecalls: number;
  /** Entries placed in <recalled-memories> blocks, summed over decisions. */
  autoRecallHits: number;
}

/**
 * One run's use of a persistent store: the frozen index for the prompt, auto-recall, the
 * `remember` tool, and the look-ahead guard. Entries flagged by the guard are excluded from all
 * three (the safe choice: the model never reads what a run further in the future wrote); they
 * stay on disk and are counted in the statistics.
 */
export class PersistentSession {
  private readonly flaggedFiles: ReadonlySet<string>;
  private readonly counts = { saves: 0, forgets: 0, recalls: 0, autoRecalls: 0, autoRecallHits: 0 };
  private readonly entriesAtStart: number;
  private readonly visible = (e: StoreEntry) => !this.flaggedFiles.has(e.file);
  readonly indexText: string;
  /** Files this run saved under another name than its title's because a hidden entry has that
   * name, and the name the model is shown for each. */
  private readonly aliases = new Map<string, string>();
  private readonly shownFile = (file: string) => this.aliases.get(file) ?? file;
  /** What the latest `remember` recall found (its citations go to decisions.jsonl). */
  lastRecalled: Recalled[] = [];

  constructor(
    readonly store: PersistentStore,
    readonly run: PersistentRun,
    readonly namespace: string,
    readonly storeHash: string,
    /** Where this run's writes are logged (the run directory's persistent/ops.jsonl). */
    readonly log: StoreLog | null = null,
  ) {
    const entries = store.entries();
    this.entriesAtStart = entries.length;
    this.flaggedFiles = new Set(
      entries.filter((e) => reachesPast(e, run.periodStart, run.runId)).map((e) => e.file),
    );
    this.indexText = store.frozenIndex
      .split("\n")
      .filter((line) => {
        const file = linkedFile(line);
        return file === null || !this.flaggedFiles.has(file);
      })
      .join("\n")
      .trim();
  }

  /** Files hidden by the look-ahead guard, sorted. */
  get flagged(): string[] {
    return [...this.flaggedFiles].sort();
  }

  /**
   * The `<recalled-memories>` block for a decision message ("" when nothing matches), from the
   * store as it is now (this run's saves included), best `limit` entries, 500 characters each.
   */
  autoRecall(query: string, limit: number): string {
    this.counts.autoRecalls++;
    const hits = this.store.find(query, Math.min(limit, AUTO_RECALL_LIMIT), this.visible);
    if (hits.length === 0) return "";
    this.counts.autoRecallHits += hits.length;
    const lines = hits.map(
      ({ entry }) =>
        `- ${entry.fields.name} (${entry.fields.type}): ${entry.fields.body.slice(0, AUTO_RECALL_CHARS)}`,
    );
    return `<recalled-memories>\n${lines.join("\n")}\n</recalled-memories>\n\n`;
  }

  /** The `remember` tool. `limit` caps recall (the policy's retrieve_limit). */
  remember(args: RememberArgs, at: Millis, limit: number): unknown {
    switch (args.action) {
      case "save": {
        const { file, named, replaced, text } = this.store.save(
          {
            title: args.title,
            content: args.content,
            type: args.type ?? DEFAULT_ENTRY_TYPE,
            ...(args.description !== undefined ? { description: args.description } : {}),
          },
          { ...this.run, writtenAt: at },
          (file) => this.flaggedFiles.has(file),
        );
        this.log?.save(at, file, text);
        this.counts.saves++;
        // Saved beside a hidden entry of the same name: the model is told the name it would have
        // had, so the answer is the same as if the hidden entry did not exist.
        if (named !== file) this.aliases.set(file, named);
        return {
          ok: true,
          saved: this.shownFile(file),
          replaced,
          note: "Saved to the persistent store now. The memory index in your instructions was fixed at the start of this run: it lists this entry from the next run on; recall finds it at once.",
        };
      }
      case "recall": {
        this.counts.recalls++;
        const n = Math.min(args.limit ?? TOOL_RECALL_LIMIT, limit);
        this.lastRecalled = this.store.find(args.query, n, this.visible);
        return {
          results: this.lastRecalled.map(({ entry, score }) => ({
            title: entry.fields.name,
            type: entry.fields.type,
            description: entry.fields.description,
            file: this.shownFile(entry.file),
            score,
            content: entry.fields.body.slice(0, TOOL_RECALL_CHARS),
          })),
        };
      }
      case "forget": {
        const removed = this.store.forget(args.title, this.visible);
        this.log?.forget(at, removed);
        this.counts.forgets++;
        return { ok: true, removed: removed.map((f) => this.shownFile(f)) };
      }
      default:
        return assertNever(args, "remember action");
    }
  }

  stats(): PersistentStats {
    return {
      namespace: this.namespace,
      storeHash: this.storeHash,
      entriesAtStart: this.entriesAtStart,
      lookAheadFlagged: this.flaggedFiles.size,
      lookAheadFiles: this.flagged,
      indexLines: this.indexText === "" ? 0 : this.indexText.split("\n").length,
      ...this.counts,
    };
  }
}
