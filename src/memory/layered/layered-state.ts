import { dayKey, dayNumber } from "../../engine/calendar.js";
import { queryTokens, tokens } from "../recall/tokenize.js";
import {
  cosine,
  type Layer,
  type LayeredItem,
  type LayeredParams,
  type Move,
  maintain,
  type Ranked,
  type ReflectionTrigger,
  reflectionDue,
  retrieve,
  retrieveSimilar,
  score,
  termCounts,
  vectorCosine,
} from "./layered-math.js";
import { alignment, consistency, type Factors, type Regime, sentiment } from "./layered-signals.js";

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
  /** The five factors of a scored importance (absent: the importance was given or defaulted). */
  factors?: Factors;
  /** Its consistency with the memories the context showed (absent: none shown, or not checked). */
  consistency?: number;
  /** Importance mode "model": the model rated the factors, or its answer was unusable and the
   * rule did ("fallback"). */
  scoredBy?: "model" | "fallback";
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
  /** Mid memories made by compressing short ones at this day end (derived), with the model's
   * summary when it wrote one (compress mode "model"; a rebuild reads it from here). */
  compressed?: { id: number; of: number[]; content?: string }[];
  reflection: ReflectionTrigger | null;
  /** Inputs from the market and the trades (a rebuild reads them): the market regime after this
   * day end, and a strategy change since the last one. */
  regime?: Regime;
  strategyChange?: true;
  /** Health after this day end (derived): mean importance and size / capacity of each layer. */
  health?: { avgImportance: number; utilisation: Record<Layer, number> };
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
  /** Memories merged into a near-identical one of their layer at a day end. */
  merged: number;
  /** Groups of short memories compressed into one mid memory, and the memories they held. */
  compressions: number;
  compressed: number;
  dayEnds: number;
  triggerDays: number;
  triggerLoss: number;
  triggerStrategy: number;
  triggerRegime: number;
  triggerConsistency: number;
}

const TRIGGER_COUNT = {
  days: "triggerDays",
  loss: "triggerLoss",
  strategy: "triggerStrategy",
  regime: "triggerRegime",
  consistency: "triggerConsistency",
} as const satisfies Record<ReflectionTrigger, keyof LayeredCounts>;

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
  due: ReflectionTrigger | null = null;
  /** The market regime as of the last day end that had one. */
  regime: Regime | null = null;
  /** A memory stored since the last day end was inconsistent with the memories shown. */
  private inconsistent = false;
  /** Ids stored since the last day end: the only ones de-duplication and compression compare
   * with the rest of their layer (older pairs were compared at an earlier day end; comparing
   * every pair at every day end would cost n² a day). */
  private readonly unchecked = new Set<number>();
  readonly counts: LayeredCounts = {
    stores: 0,
    reflections: 0,
    reflectionDuplicates: 0,
    reflectionTriggers: 0,
    promotions: 0,
    demotions: 0,
    removed: 0,
    merged: 0,
    compressions: 0,
    compressed: 0,
    dayEnds: 0,
    triggerDays: 0,
    triggerLoss: 0,
    triggerStrategy: 0,
    triggerRegime: 0,
    triggerConsistency: 0,
  };
  private readonly termCache = new Map<number, Map<string, number>>();
  private readonly vecCache = new Map<number, TermVec>();
  private readonly tokenIds = new Map<string, number>();
  /** Embeddings of the kept reflections, by id (runs with `--embed-model` only). */
  private readonly vectors = new Map<number, number[]>();
  /** The groups the last day end compressed, with their members (for a model's summary). */
  lastGroups: { id: number; members: LayeredItem[] }[] = [];

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
    scored?: { factors?: Factors; consistency?: number | null; scoredBy?: "model" | "fallback" },
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
    if (scored?.factors !== undefined) op.factors = scored.factors;
    if (scored?.scoredBy !== undefined) op.scoredBy = scored.scoredBy;
    const c = scored?.consistency;
    if (c !== undefined && c !== null) {
      op.consistency = c;
      if (c < this.params.consistencyThreshold) this.inconsistent = true;
    }
    this.unchecked.add(op.id);
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
    // Tokenised now, once: the day end compares it with its layer.
    this.vec(this.items[this.items.length - 1] as LayeredItem);
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

  /**
   * The day-end maintenance (decay, flow, clean-up; then de-duplication in every layer and the
   * compression of similar short memories), then the reflection check. `market`: the regime after
   * this day end and whether a trade changed the strategy since the last one.
   */
  dayEnd(
    time: number,
    bar: number,
    equity: number,
    market: { regime?: Regime | null; strategyChange?: boolean } = {},
  ): DayEndOp {
    this.started(time);
    const day = dayNumber(time);
    const seq = this.seq + 1;
    const moves = maintain(this.items, day, this.params);
    for (const m of moves) {
      if (m.to === null) {
        this.counts.removed++;
        this.forget(m.id);
      } else {
        if (m.why === "promote") this.counts.promotions++;
        else this.counts.demotions++;
      }
    }
    const fresh = this.newcomers();
    this.unchecked.clear();
    const merged = this.dedupe(fresh);
    moves.push(...merged);
    const mergedIds = new Set(merged.map((m) => m.id));
    const compressed = this.compress(fresh, mergedIds, time, seq, day, moves);
    // A summary is new in the mid layer: compared with it at the next day end.
    for (const c of compressed) this.unchecked.add(c.id);
    this.counts.dayEnds++;
    this.equities.push(equity);
    const regime = market.regime ?? null;
    const regimeChange = this.regime !== null && regime !== null && regime !== this.regime;
    if (regime !== null) this.regime = regime;
    const strategyChange = market.strategyChange === true;
    const reflection = reflectionDue(
      day,
      this.lastReflectionDay ?? day,
      this.equities,
      this.params,
      {
        strategyChange,
        regimeChange,
        inconsistent: this.inconsistent,
      },
    );
    this.inconsistent = false;
    if (reflection !== null) {
      this.counts.reflectionTriggers++;
      this.counts[TRIGGER_COUNT[reflection]]++;
      this.lastReflectionDay = day;
      this.equities = [equity];
      this.due = reflection;
    }
    if (this.equities.length > this.params.lossWindowDays + 1) this.equities.shift();
    this.seq = seq;
    const op: DayEndOp = { seq, op: "day_end", time, bar, equity, moves, reflection };
    if (compressed.length > 0) op.compressed = compressed;
    if (regime !== null) op.regime = regime;
    if (strategyChange) op.strategyChange = true;
    op.health = this.health();
    return op;
  }

  /** Mean importance of every memory, and each layer's size over its capacity (1e-6). */
  health(): { avgImportance: number; utilisation: Record<Layer, number> } {
    let sum = 0;
    for (const item of this.items) sum += item.importance;
    const sizes = this.sizes();
    const util = (l: Layer) => round6(sizes[l] / this.params.layers[l].capacity);
    return {
      avgImportance: this.items.length === 0 ? 0 : round6(sum / this.items.length),
      utilisation: {
        short: util("short"),
        mid: util("mid"),
        long: util("long"),
        reflection: util("reflection"),
      },
    };
  }

  /**
   * The memories stored since the last day end, each with its layer's other memories and their
   * similarity to it (computed once for de-duplication and compression).
   */
  private newcomers(): { u: LayeredItem; others: LayeredItem[]; sims: Float64Array }[] {
    if (this.unchecked.size === 0) return [];
    const fresh: LayeredItem[] = [];
    const layers = new Set<Layer>();
    for (const i of this.items) {
      if (this.unchecked.has(i.id)) {
        fresh.push(i);
        layers.add(i.layer);
      }
    }
    const byLayer = new Map<Layer, LayeredItem[]>();
    for (const l of layers) byLayer.set(l, []);
    for (const i of this.items) byLayer.get(i.layer)?.push(i);
    fresh.sort((x, y) => x.id - y.id);
    return fresh.map((u) => {
      const others = byLayer.get(u.layer) ?? [];
      const sims = new Float64Array(others.length);
      others.forEach((o, k) => {
        sims[k] = o === u ? 1 : this.similarity(u, o);
      });
      return { u, others, sims };
    });
  }

  /**
   * De-duplication in every layer: a memory stored since the last day end and another of its
   * layer at least dedupSimilarity alike (the most alike) are merged: the one with the lower
   * importance × recency (on a tie the older) is removed, the other keeps the higher importance.
   */
  private dedupe(fresh: ReturnType<LayeredState["newcomers"]>): Move[] {
    const out: Move[] = [];
    const gone = new Set<number>();
    for (const { u, others, sims } of fresh) {
      if (gone.has(u.id)) continue;
      let best: { other: LayeredItem; similarity: number } | null = null;
      others.forEach((other, k) => {
        if (other === u || gone.has(other.id)) return;
        const similarity = sims[k] ?? 0;
        if (
          similarity >= this.params.dedupSimilarity &&
          (best === null || similarity > best.similarity)
        ) {
          best = { other, similarity };
        }
      });
      if (best === null) continue;
      const o = (best as { other: LayeredItem }).other;
      const su = score(u, this.params);
      const so = score(o, this.params);
      const keep = su > so || (su === so && u.id > o.id) ? u : o;
      const drop = keep === u ? o : u;
      keep.importance = Math.max(keep.importance, drop.importance);
      gone.add(drop.id);
      out.push({ id: drop.id, from: drop.layer, to: null, why: "duplicate", into: keep.id });
    }
    if (gone.size > 0) {
      this.items = this.items.filter((i) => !gone.has(i.id));
      for (const id of gone) this.forget(id);
      this.counts.merged += gone.size;
    }
    return out;
  }

  /**
   * Compression: a short memory stored since the last day end, with every other short memory at
   * least compressSimilarity alike to it, makes a group; a group of more than compressMin becomes
   * one mid memory (the newest text, the count, the ids and the days they were stored; the mid
   * layer's initial importance) and its members are removed.
   */
  private compress(
    fresh: ReturnType<LayeredState["newcomers"]>,
    /** Merged away by the de-duplication just before: no longer in the store. */
    merged: ReadonlySet<number>,
    time: number,
    seq: number,
    day: number,
    moves: Move[],
  ): { id: number; of: number[] }[] {
    const out: { id: number; of: number[] }[] = [];
    this.lastGroups = [];
    const min = this.params.compressMin;
    if (min <= 0) return out;
    const gone = new Set<number>(merged);
    let members = 0;
    for (const { u, others, sims } of fresh) {
      if (u.layer !== "short" || gone.has(u.id)) continue;
      const group = others.filter(
        (o, k) => !gone.has(o.id) && (sims[k] ?? 0) >= this.params.compressSimilarity,
      );
      if (group.length <= min) continue;
      group.sort((a, b) => a.id - b.id);
      const newest = group[group.length - 1] as LayeredItem;
      const of = group.map((g) => g.id);
      const content = summaryContent(newest.content, group);
      const summary: LayeredItem = {
        id: this.nextId++,
        layer: "mid",
        content,
        importance: this.params.layers.mid.initialImportance,
        ageDays: 0,
        day,
        created: time,
        line: seq,
      };
      members += group.length;
      for (const g of group) {
        gone.add(g.id);
        moves.push({ id: g.id, from: "short", to: null, why: "compress", into: summary.id });
      }
      this.items.push(summary);
      out.push({ id: summary.id, of });
      this.lastGroups.push({ id: summary.id, members: group });
    }
    if (out.length > 0) {
      this.items = this.items.filter((i) => !gone.has(i.id));
      for (const id of gone) if (!merged.has(id)) this.forget(id);
      this.counts.compressions += out.length;
      this.counts.compressed += members;
    }
    return out;
  }

  /** Replaces a compressed group's summary text (the model's, as logged at its day end). */
  rewriteSummary(id: number, content: string): void {
    const item = this.items.find((i) => i.id === id);
    if (item === undefined) {
      throw new LayeredLogError(
        `layered.jsonl: the summary #${id} of a day end is not in the store: the log is damaged.`,
      );
    }
    item.content = content;
    this.termCache.delete(id);
    this.vecCache.delete(id);
  }

  /** Treats every kept memory as compared already, as after a day end (a store built without
   * day ends: the benchmark's). */
  settle(): void {
    this.unchecked.clear();
  }

  /** How alike two memories are: their embeddings' cosine when both have one, else tokens'. */
  private similarity(a: LayeredItem, b: LayeredItem): number {
    if (this.vectors.size > 0) {
      const va = this.vectors.get(a.id);
      const vb = this.vectors.get(b.id);
      if (va !== undefined && vb !== undefined) return vectorCosine(va, vb);
    }
    const x = this.vec(a);
    const y = this.vec(b);
    if (x.norm2 === 0 || y.norm2 === 0) return 0;
    // The same value as cosine(): an integer dot product over squared norms, one division.
    let dot = 0;
    let i = 0;
    let j = 0;
    while (i < x.ids.length && j < y.ids.length) {
      const u = x.ids[i] as number;
      const v = y.ids[j] as number;
      if (u === v) dot += (x.counts[i++] as number) * (y.counts[j++] as number);
      else if (u < v) i++;
      else j++;
    }
    return Math.min(1, dot / Math.sqrt(x.norm2 * y.norm2));
  }

  /** A memory's term counts as sorted token numbers (interned per state), cached. */
  private vec(item: LayeredItem): TermVec {
    let v = this.vecCache.get(item.id);
    if (v === undefined) {
      const pairs = [...this.terms(item)].map(([t, n]) => {
        let k = this.tokenIds.get(t);
        if (k === undefined) {
          k = this.tokenIds.size;
          this.tokenIds.set(t, k);
        }
        return [k, n] as const;
      });
      pairs.sort((p, q) => p[0] - q[0]);
      let norm2 = 0;
      for (const [, n] of pairs) norm2 += n * n;
      v = {
        ids: Int32Array.from(pairs, (p) => p[0]),
        counts: Float64Array.from(pairs, (p) => p[1]),
        norm2,
      };
      this.vecCache.set(item.id, v);
    }
    return v;
  }

  private forget(id: number): void {
    this.termCache.delete(id);
    this.vecCache.delete(id);
    this.vectors.delete(id);
    this.unchecked.delete(id);
  }

  /** Novelty in [0, 1]: 1 - the highest token cosine to a kept memory (1 when none). */
  novelty(content: string): number {
    const mine = termCounts(tokens(content));
    let max = 0;
    for (const item of this.items) max = Math.max(max, cosine(mine, this.terms(item)));
    return 1 - max;
  }

  /**
   * Consistency of a new memory with the memories the decision's context shows (`top`) that are
   * about the same thing (a keyword in common, stopwords dropped) and that, like it, take a side
   * (a non-neutral sentiment): mean of w × token cosine + (1 - w) × alignment. Null when none is.
   */
  consistencyOf(content: string): number | null {
    const feel = sentiment(content);
    if (feel === 0) return null;
    const mine = termCounts(queryTokens(content));
    const pairs: { similarity: number; alignment: number }[] = [];
    for (const r of this.top()) {
      const theirs = sentiment(r.item.content);
      if (theirs === 0) continue;
      const similarity = cosine(mine, termCounts(queryTokens(r.item.content)));
      if (similarity > 0) pairs.push({ similarity, alignment: alignment(feel, theirs) });
    }
    return consistency(pairs, this.params);
  }

  /** Applies a logged operation (a rebuild). */
  apply(op: LayeredOp): void {
    if (op.op === "store") {
      this.store(op.time, op.bar, op.layer, op.importance, op.content, op.vector, {
        ...(op.factors === undefined ? {} : { factors: op.factors }),
        ...(op.consistency === undefined ? {} : { consistency: op.consistency }),
      });
    } else if (op.op === "duplicate") this.reflect(op.time, op.bar, 0, op.content, op.vector);
    else {
      this.dayEnd(op.time, op.bar, op.equity, {
        regime: op.regime ?? null,
        strategyChange: op.strategyChange === true,
      });
      for (const c of op.compressed ?? []) {
        if (c.content !== undefined) this.rewriteSummary(c.id, c.content);
      }
    }
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

  /** Retrieval for a query: token cosine similarity, threshold, layer weights, top k. */
  search(query: string): Ranked[] {
    const q = termCounts(queryTokens(query));
    if (q.size === 0) return [];
    return retrieveSimilar(this.items, this.params, (item) => cosine(q, this.terms(item)));
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

/**
 * A compressed group's summary: `text` (the newest member's, or the model's) and where it came
 * from: the count, the ids and the days they were stored. No "short" / "long" in the wording:
 * they are sentiment words (consistency).
 */
export function summaryContent(text: string, group: readonly LayeredItem[]): string {
  const first = group[0];
  const newest = group[group.length - 1];
  const ids = group.map((g) => `#${g.id}`).join(", ");
  const days =
    first === undefined || newest === undefined
      ? ""
      : `; stored ${dayKey(first.created)} to ${dayKey(newest.created)}`;
  return `${text}\n(summary of ${group.length} similar memories: ${ids}${days})`;
}

interface TermVec {
  ids: Int32Array;
  counts: Float64Array;
  norm2: number;
}
