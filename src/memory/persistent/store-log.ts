import path from "node:path";
import { z } from "zod";
import type { Millis } from "../../engine/types.js";
import type { Citation } from "../../strategy/types.js";
import { appendLines } from "../../util/append-lines.js";
import { readFileNoFollow } from "../../util/no-follow.js";
import { MAX_SNIPPET_CHARS } from "../recall/snippet.js";
import { minuteStamp } from "../sim-time.js";
import { STORE_LOG } from "./persistent-config.js";
import { PersistentStore, type Recalled, type StoreEntry } from "./persistent-store.js";
import { METADATA_WEIGHT, queryTokenSet } from "./relevance.js";
import { SNAPSHOT_DIR } from "./store-snapshot.js";

// STORE_LOG is defined with the system's config (the registry lists it without this module).
export { STORE_LOG };

/** A write to the store: `text` is the entry file exactly as saved; `seq` counts from 1. */
export type StoreOp =
  | { seq: number; time: Millis; at: string; op: "save"; file: string; text: string }
  | { seq: number; time: Millis; at: string; op: "forget"; files: string[] };

const opSchema = z.discriminatedUnion("op", [
  z.object({
    seq: z.number().int().min(1),
    time: z.number(),
    at: z.string(),
    op: z.literal("save"),
    file: z.string().min(1),
    text: z.string(),
  }),
  z.object({
    seq: z.number().int().min(1),
    time: z.number(),
    at: z.string(),
    op: z.literal("forget"),
    files: z.array(z.string()),
  }),
]);

/** An ops.jsonl line that cannot be read: the log was changed or cut. */
export class StoreLogError extends Error {
  override readonly name = "StoreLogError";
}

/** Appends this run's writes to `persistent/ops.jsonl` and knows where each entry came from. */
export class StoreLog {
  private seq = 0;
  /** Entry file → the log line of its latest save (absent: it is the snapshot's). */
  private readonly lines = new Map<string, number>();

  constructor(private readonly runDir: string) {}

  /** Writes done so far: the state a recall at this moment searches. */
  get count(): number {
    return this.seq;
  }

  save(time: Millis, file: string, text: string): void {
    this.append({ seq: this.seq + 1, time, at: minuteStamp(time), op: "save", file, text });
    this.lines.set(file, this.seq);
  }

  forget(time: Millis, files: string[]): void {
    this.append({ seq: this.seq + 1, time, at: minuteStamp(time), op: "forget", files });
    for (const f of files) this.lines.delete(f);
  }

  citations(hits: readonly Recalled[], query: string): Citation[] {
    return hits.map((h) => citation(h, query, this.lines.get(h.entry.file) ?? null));
  }

  private append(op: StoreOp): void {
    appendLines(path.join(this.runDir, ...STORE_LOG.split("/")), `${JSON.stringify(op)}\n`);
    this.seq = op.seq;
  }
}

/** The writes of a finished run's log ([] when absent: no write, or a run before the log). */
export function readStoreLog(runDir: string): StoreOp[] {
  const file = path.join(runDir, ...STORE_LOG.split("/"));
  const bytes = readFileNoFollow(file);
  if (bytes === null) return [];
  const out: StoreOp[] = [];
  bytes
    .toString("utf8")
    .split("\n")
    .forEach((line, n) => {
      if (line.trim() === "") return;
      const op = parseOp(line);
      if (op === null) {
        throw new StoreLogError(
          `${file}:${n + 1}: not a persistent-store write (a JSON line {"seq", "time", "op": "save" | "forget", …}); the log is damaged: restore it from a copy of the run directory.`,
        );
      }
      out.push(op);
    });
  return out;
}

function parseOp(line: string): StoreOp | null {
  try {
    const parsed = opSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/**
 * The store as the run saw it after its first `seq` writes: its snapshot, then those writes,
 * in memory only. Also returns where each entry came from (for citations).
 */
export function storeAt(
  runDir: string,
  ops: readonly StoreOp[],
  seq: number,
): { store: PersistentStore; lines: Map<string, number> } {
  const store = PersistentStore.readOnly(path.join(runDir, ...SNAPSHOT_DIR.split("/")));
  const lines = new Map<string, number>();
  for (const op of ops.slice(0, seq)) {
    if (op.op === "save") {
      store.restoreEntry(op.file, op.text);
      lines.set(op.file, op.seq);
    } else {
      for (const f of op.files) {
        store.dropEntry(f);
        lines.delete(f);
      }
    }
  }
  return { store, lines };
}

/**
 * A recalled entry as a citation: a snapshot entry by its file in the snapshot, an entry this run
 * saved by its line in the log. The score is the overlap as a share of the most a query can
 * score (every token in the title or description and the body: 3 per token), so it is in (0, 1].
 */
export function citation(hit: Recalled, query: string, logLine: number | null): Citation {
  const e: StoreEntry = hit.entry;
  const most = (METADATA_WEIGHT + 1) * Math.max(1, queryTokenCount(query));
  return {
    path: logLine === null ? `${SNAPSHOT_DIR}/${e.file}` : STORE_LOG,
    startLine: logLine ?? 1,
    endLine: logLine ?? 1,
    snippet: `${e.fields.name} (${e.fields.type}): ${e.fields.body}`.slice(0, MAX_SNIPPET_CHARS),
    score: Math.round(Math.min(1, hit.score / most) * 1e6) / 1e6,
    source: "persistent",
  };
}

const queryTokenCount = (query: string) => queryTokenSet(query).size;
