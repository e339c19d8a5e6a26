import { dayNumber } from "../../engine/calendar.js";
import { queryTokens, tokens } from "../recall/tokenize.js";
import {
  cosine,
  type Layer,
  type LayeredItem,
  type LayeredParams,
  type Move,
  maintain,
  type Ranked,
  reflectionDue,
  retrieve,
  termCounts,
  vectorCosine,
} from "./layered-math.js";

// The layered memory's state and the log operations that change it, pure (no fs): the live run
// applies each operation and appends it to layered.jsonl; a rebuild (`recall --as-of`, a resume)
// applies the logged operations again and reaches the same state. Line n of the log is the
// operation with seq n.

export interface StoreOp {
  seq: number;
  op: "store";
  id: number;
  time: number;
  bar: number;
  layer: Layer;
  importance: number;
  content: string;
  /** A reflection's embedding, when the run de-duplicates by embeddings (`--embed-model`). */
  vector?: number[];
}

/** A reflection that was not stored: too similar to a kept one. Logged for the record. */
export interface DuplicateOp {
  seq: number;
  op: "duplicate";
  time: number;
  bar: number;
  of: number;
  similarity: number;
  content: string;
  /** "embedding" when `similarity` is the cosine of embeddings (absent: token cosine). */
  by?: "embedding";
  /** Its embedding (logged so a replay or a rebuild needs no network). */
  vector?: number[];
}

export interface DayEndOp {
  seq: number;
  op: "day_end";
  time: number;
  bar: number;
  equity: number;
  /** What the maintenance did (derived: a rebuild recomputes it). */
  moves: Move[];
  reflection: "days" | "loss" | null;
}

export type LayeredOp = StoreOp | DuplicateOp | DayEndOp;

export interface LayeredCounts {
  stores: number;
  reflections: number;
  reflectionDuplicates: number;
  reflectionTriggers: number;
  promotions: number;
  demotions: number;
  removed: number;
  dayEnds: number;
}

/** layered.jsonl cannot be read as a log of operations (damaged or edited by hand). */
export class LayeredLogError extends Error {
  override readonly name = "LayeredLogError";
}

export class LayeredState {
  items: LayeredItem[] = [];
  seq = 0;
  private nextId = 1;
  /** The day of the last reflection, or of the first event of the run. */
  private lastReflectionDay: number | null = null;
  /** Equity at the day ends since the last reflection trigger, oldest first. */
  private equities: number[] = [];
  /** Set at a day end that triggered a reflection; cleared once asked. */
  due: "days" | "loss" | null = null;
  readonly counts: LayeredCounts = {
    stores: 0,
    reflections: 0,
    reflectionDuplicates: 0,
    reflectionTriggers: 0,
    promotions: 0,
    demotions: 0,
    removed: 0,
    dayEnds: 0,
  };
  private readonly termCache = new Map<number, Map<string, number>>();
  /** Embeddings of the kept reflections, by id (runs with `--embed-model` only). */
  private readonly vectors = new Map<number, number[]>();

  constructor(readonly params: LayeredParams) {}

  private started(time: number): void {
    this.lastReflectionDay ??= dayNumber(time);
  }

  /** Stores a memory (a reflection goes through `reflect`). */
  store(
    time: number,
    bar: number,
    layer: Layer,
    importance: number,
    content: string,
    vector?: number[],
  ): StoreOp {
    this.started(time);
    const op: StoreOp = {
      seq: ++this.seq,
      op: "store",
      id: this.nextId++,
      time,
      bar,
      layer,
      importance,
      content,
    };
    if (vector !== undefined) {
      op.vector = vector;
      this.vectors.set(op.id, vector);
    }
    this.items.push({
      id: op.id,
      layer,
      content,
      importance,
      ageDays: 0,
      day: dayNumber(time),
      created: time,
      line: op.seq,
    });
    this.counts.stores++;
    if (layer === "reflection") {
      this.counts.reflections++;
      this.lastReflectionDay = dayNumber(time);
    }
    return op;
  }

  /**
   * Stores a reflection unless a kept one is at least `dedupSimilarity` alike: the cosine of
   * embeddings when `vector` is given (its embedding), else the token cosine.
   */
  reflect(
    time: number,
    bar: number,
    importance: number,
    content: string,
    vector?: number[],
  ): LayeredOp {
    const mine = vector === undefined ? termCounts(tokens(content)) : null;
    let best: { id: number; similarity: number } | null = null;
    for (const item of this.items) {
      if (item.layer !== "reflection") continue;
      const similarity =
        mine === null
          ? vectorCosine(vector ?? [], this.vectors.get(item.id) ?? [])
          : cosine(mine, this.terms(item));
      if (
        similarity >= this.params.dedupSimilarity &&
        (best === null || similarity > best.similarity)
      ) {
        best = { id: item.id, similarity };
      }
    }
    if (best === null) return this.store(time, bar, "reflection", importance, content, vector);
    this.started(time);
    this.counts.reflectionDuplicates++;
    const op: DuplicateOp = {
      seq: ++this.seq,
      op: "duplicate",
      time,
      bar,
      of: best.id,
      similarity: round6(best.similarity),
      content,
    };
    if (vector !== undefined) {
      op.by = "embedding";
      op.vector = vector;
    }
    return op;
  }

  /** The day-end maintenance, then the reflection check. */
  dayEnd(time: number, bar: number, equity: number): DayEndOp {
    this.started(time);
    const day = dayNumber(time);
    const moves = maintain(this.items, day, this.params);
    for (const m of moves) {
      if (m.to === null) {
        this.counts.removed++;
        this.termCache.delete(m.id);
        this.vectors.delete(m.id);
      } else if (m.why === "promote") this.counts.promotions++;
      else this.counts.demotions++;
    }
    this.counts.dayEnds++;
    this.equities.push(equity);
    const reflection = reflectionDue(
      day,
      this.lastReflectionDay ?? day,
      this.equities,
      this.params,
    );
    if (reflection !== null) {
      this.counts.reflectionTriggers++;
      this.lastReflectionDay = day;
      this.equities = [equity];
      this.due = reflection;
    }
    if (this.equities.length > this.params.lossWindowDays + 1) this.equities.shift();
    return { seq: ++this.seq, op: "day_end", time, bar, equity, moves, reflection };
  }

  /** Applies a logged operation (a rebuild). */
  apply(op: LayeredOp): void {
    if (op.op === "store") {
      this.store(op.time, op.bar, op.layer, op.importance, op.content, op.vector);
    } else if (op.op === "duplicate") this.reflect(op.time, op.bar, 0, op.content, op.vector);
    else this.dayEnd(op.time, op.bar, op.equity);
    if (op.seq !== this.seq) {
      throw new LayeredLogError(
        `layered.jsonl line ${op.seq} is out of sequence (expected ${this.seq}): the log is damaged.`,
      );
    }
  }

  /** The best memories of each layer by score, for the decision's context. */
  top(): Ranked[] {
    return retrieve(this.items, this.params, null);
  }

  /** Layer-weighted retrieval for a query (token cosine relevance). */
  search(query: string): Ranked[] {
    const q = termCounts(queryTokens(query));
    if (q.size === 0) return [];
    return retrieve(this.items, this.params, (item) => cosine(q, this.terms(item)));
  }

  sizes(): Record<Layer, number> {
    const out = { short: 0, mid: 0, long: 0, reflection: 0 };
    for (const item of this.items) out[item.layer]++;
    return out;
  }

  private terms(item: LayeredItem): Map<string, number> {
    let t = this.termCache.get(item.id);
    if (t === undefined) {
      t = termCounts(tokens(item.content));
      this.termCache.set(item.id, t);
    }
    return t;
  }
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
