// The arithmetic of INVESTOR-BENCH / FinMem's layered memory, pure: no fs, no clock, no
// randomness. Time is simulated calendar days. docs/memory-layered.md gives the formulas.

export const LAYERS = ["short", "mid", "long", "reflection"] as const;
export type Layer = (typeof LAYERS)[number];

export interface LayerParams {
  /** Importance a memory stored in this layer starts with, when the caller gives none. */
  initialImportance: number;
  /** recency = exp(-days / recencyPeriodDays). */
  recencyPeriodDays: number;
  /** importance × importanceDecay per simulated day. */
  importanceDecay: number;
  /** Clean-up: removed when recency falls below this… */
  cleanupRecency: number;
  /** …or importance below this. */
  cleanupImportance: number;
  /** Memories of this layer retrieved per query (3/2/2/1). */
  topK: number;
  /** Multiplies this layer's retrieval scores. */
  weight: number;
  /** Memories the layer is planned for: utilisation = size / capacity (a health figure only). */
  capacity: number;
}

/** The five factors of a scored importance, each in [0, 1]. */
export const IMPORTANCE_FACTORS = [
  "marketImpact",
  "novelty",
  "relevance",
  "source",
  "urgency",
] as const;
export type ImportanceFactor = (typeof IMPORTANCE_FACTORS)[number];

export interface LayeredParams {
  layers: Record<Layer, LayerParams>;
  /** short → mid above it; mid → short (or removed) below it. Seed: 55. */
  jumpLower: number;
  /** mid → long above it; long → mid below it. Seed: 85. */
  jumpUpper: number;
  /** A mid memory demoted below jumpLower goes back to short only if its recency is above this
   * (seed: 0.1); otherwise it is removed. */
  demoteMinRecency: number;
  /** A reflection is due when more than this many days passed since the last one. Seed: 30. */
  reflectionEveryDays: number;
  /** …or when equity fell more than this fraction over the last `lossWindowDays` day ends. */
  reflectionLoss: number;
  lossWindowDays: number;
  /** A reflection at least this similar to a kept one is a duplicate (not stored); at a day end,
   * two memories of one layer at least this similar are merged. Seed: 0.95. */
  dedupSimilarity: number;
  /** "scored": a memory stored without an importance gets the five-factor score; "model": the
   * run's model rates the five factors (the rule when it cannot: a code strategy, a bad answer);
   * "agent": the layer's initial importance (the behaviour before the scorer). */
  importanceMode: "scored" | "agent" | "model";
  /** Points of each factor (they sum to the 100 an importance is capped at). */
  importanceWeights: Record<ImportanceFactor, number>;
  /** A bar's |close-to-close return| that scores the full market impact. */
  impactMove: number;
  /** A bar's volume over its trailing mean that scores the full urgency (1 scores none). */
  urgencyVolumeRatio: number;
  /** Bars of the trailing volume mean. */
  volumeWindow: number;
  /** Credibility of a memory stored at a bar with a fill or a closed trade (an executed fact). */
  tradeCredibility: number;
  /** Credibility of any other memory (the agent's own reading). */
  agentCredibility: number;
  /** Retrieval for a query: the similarity a memory needs (seed: 0.7)… */
  recallThreshold: number;
  /** …memories per layer and overall (seed: 5); also memory_recall's default limit. */
  recallTopK: number;
  /** Short memories in a group (a new one and those at least compressSimilarity alike) above this
   * count are compressed into one mid memory (seed: more than 3). 0: never. */
  compressMin: number;
  compressSimilarity: number;
  /** Who writes a compressed group's summary: "model", the run's model (the rule when it cannot);
   * absent or "rule": the newest memory's text. */
  compressMode?: "rule" | "model";
  /** A day end after a trade that opens the other direction (long after short, short after long)
   * triggers a reflection. */
  strategyChangeTrigger: boolean;
  /** Market regime: the mean return of the run's symbols over this many bars (0: no regime
   * trigger)… */
  regimeWindow: number;
  /** …above +this is "up", below -this "down", between keeps the last regime; up ↔ down is a
   * regime change. */
  regimeThreshold: number;
  /** A stored memory's consistency with the memories the context shows (0.7 similarity + 0.3
   * sentiment) below this triggers a reflection at the day end (seed: 0.3). 0: never. */
  consistencyThreshold: number;
  consistencySimilarityWeight: number;
}

/** INVESTOR-BENCH's parameters. Clean-up of mid and reflection: FinMem's 0.05 / 5, which
 * INVESTOR-BENCH does not restate. */
export const DEFAULT_LAYERED_PARAMS: LayeredParams = {
  layers: {
    short: {
      initialImportance: 50,
      recencyPeriodDays: 3,
      importanceDecay: 0.92,
      cleanupRecency: 0.05,
      cleanupImportance: 5,
      topK: 3,
      weight: 1,
      capacity: 500,
    },
    mid: {
      initialImportance: 60,
      recencyPeriodDays: 90,
      importanceDecay: 0.96,
      cleanupRecency: 0.05,
      cleanupImportance: 5,
      topK: 2,
      weight: 1,
      capacity: 800,
    },
    long: {
      initialImportance: 90,
      recencyPeriodDays: 365,
      importanceDecay: 0.96,
      cleanupRecency: 0.05,
      cleanupImportance: 20,
      topK: 2,
      weight: 1,
      capacity: 2000,
    },
    reflection: {
      initialImportance: 80,
      recencyPeriodDays: 365,
      importanceDecay: 0.98,
      cleanupRecency: 0.05,
      cleanupImportance: 5,
      topK: 1,
      weight: 1,
      capacity: 200,
    },
  },
  jumpLower: 55,
  jumpUpper: 85,
  demoteMinRecency: 0.1,
  reflectionEveryDays: 30,
  reflectionLoss: 0.05,
  lossWindowDays: 5,
  dedupSimilarity: 0.95,
  importanceMode: "scored",
  importanceWeights: { marketImpact: 30, novelty: 25, relevance: 20, source: 15, urgency: 10 },
  impactMove: 0.05,
  urgencyVolumeRatio: 2,
  volumeWindow: 20,
  tradeCredibility: 1,
  agentCredibility: 0.6,
  recallThreshold: 0.7,
  recallTopK: 5,
  compressMin: 3,
  compressSimilarity: 0.7,
  strategyChangeTrigger: true,
  regimeWindow: 20,
  regimeThreshold: 0.05,
  consistencyThreshold: 0.3,
  consistencySimilarityWeight: 0.7,
};

export interface LayeredItem {
  id: number;
  layer: Layer;
  content: string;
  importance: number;
  /** Days in the current layer (reset to 0 by a promotion or a demotion). */
  ageDays: number;
  /** The day the item's importance and age were last brought up to date. */
  day: number;
  /** Simulated time it was stored, and the log line that stored it. */
  created: number;
  line: number;
}

export function recency(item: LayeredItem, p: LayeredParams): number {
  return Math.exp(-item.ageDays / p.layers[item.layer].recencyPeriodDays);
}

/** INVESTOR-BENCH's compound score: importance × recency (0…100). */
export function score(item: LayeredItem, p: LayeredParams): number {
  return item.importance * recency(item, p);
}

/** The layer a memory stored without one goes to, by its importance (seed: <55 short, 55–85 mid,
 * >85 long). */
export function layerForImportance(importance: number, p: LayeredParams): Layer {
  if (importance > p.jumpUpper) return "long";
  if (importance >= p.jumpLower) return "mid";
  return "short";
}

export interface Move {
  id: number;
  from: Layer;
  to: Layer | null;
  /** promote, demote, the clean-up rule that removed it, or the day end's de-duplication /
   * compression that merged it `into` another memory. */
  why: "promote" | "demote" | "recency" | "importance" | "duplicate" | "compress";
  into?: number;
}

/**
 * The day-end maintenance at `day`, in place: (1) decay: importance × decay^days and age + days
 * for the days since each item was last updated; (2) flow, at most one layer per day end: short
 * above jumpLower → mid; mid above jumpUpper → long; mid below jumpLower → short if its recency
 * is above demoteMinRecency, else removed; long below jumpUpper → mid; a moved item's age restarts
 * at 0; (3) clean-up in the item's (new) layer: recency below cleanupRecency or importance below
 * cleanupImportance → removed. Returns the moves in item order.
 */
export function maintain(items: LayeredItem[], day: number, p: LayeredParams): Move[] {
  const moves: Move[] = [];
  const { jumpLower, jumpUpper, demoteMinRecency, layers } = p;
  let kept = 0;
  for (const item of items) {
    const days = day - item.day;
    if (days > 0) {
      item.importance *= layers[item.layer].importanceDecay ** days;
      item.ageDays += days;
      item.day = day;
    }
    const from = item.layer;
    const imp = item.importance;
    let to: Layer | null = from;
    if (from === "short") {
      if (imp > jumpLower) to = "mid";
    } else if (from === "mid") {
      if (imp > jumpUpper) to = "long";
      else if (imp < jumpLower) to = recency(item, p) > demoteMinRecency ? "short" : null;
    } else if (from === "long" && imp < jumpUpper) to = "mid";
    if (to === null) {
      moves.push({ id: item.id, from, to: null, why: "demote" });
      continue;
    }
    if (to !== from) {
      moves.push({ id: item.id, from, to, why: RANK[to] > RANK[from] ? "promote" : "demote" });
      item.layer = to;
      item.ageDays = 0;
    }
    const lp = layers[item.layer];
    // A memory that just moved has recency 1: only its importance can be below the clean-up.
    if (item.ageDays > 0 && Math.exp(-item.ageDays / lp.recencyPeriodDays) < lp.cleanupRecency) {
      moves.push({ id: item.id, from: item.layer, to: null, why: "recency" });
      continue;
    }
    if (imp < lp.cleanupImportance) {
      moves.push({ id: item.id, from: item.layer, to: null, why: "importance" });
      continue;
    }
    items[kept++] = item;
  }
  items.length = kept;
  return moves;
}

const RANK: Record<Layer, number> = { short: 0, mid: 1, long: 2, reflection: 3 };

/** Term frequencies of a text's tokens. */
export function termCounts(tokens: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}

/** Cosine similarity of two term-frequency vectors, in [0, 1] (0 when either is empty). */
export function cosine(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [t, x] of a) {
    na += x * x;
    const y = b.get(t);
    if (y !== undefined) dot += x * y;
  }
  for (const y of b.values()) nb += y * y;
  return na === 0 || nb === 0 ? 0 : Math.min(1, dot / Math.sqrt(na * nb));
}

/** Cosine of two embedding vectors (0 when either is zero or their lengths differ). */
export function vectorCosine(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : Math.min(1, dot / Math.sqrt(na * nb));
}

export interface Ranked {
  item: LayeredItem;
  /** relevance × importance/100 × recency × layer weight (relevance 1 without a query). */
  score: number;
}

/**
 * Layer-weighted retrieval: in each layer, the items with a positive relevance ranked by
 * relevance × importance/100 × recency × the layer's weight, the layer's top k of them; then all
 * layers' picks by that score, best first (ties: the newer memory first). `relevance` null: no
 * query, every item is relevant (1).
 */
export function retrieve(
  items: readonly LayeredItem[],
  p: LayeredParams,
  relevance: ((item: LayeredItem) => number) | null,
): Ranked[] {
  const picked: Ranked[] = [];
  for (const layer of LAYERS) {
    const lp = p.layers[layer];
    if (lp.topK <= 0) continue;
    const ranked: Ranked[] = [];
    for (const item of items) {
      if (item.layer !== layer) continue;
      const r = relevance === null ? 1 : relevance(item);
      if (r <= 0) continue;
      ranked.push({ item, score: (r * score(item, p) * lp.weight) / 100 });
    }
    ranked.sort(byScore);
    picked.push(...ranked.slice(0, lp.topK));
  }
  return picked.sort(byScore);
}

const byScore = (a: Ranked, b: Ranked) => b.score - a.score || b.item.id - a.item.id;

/**
 * Retrieval for a query: in each layer, the items whose similarity is at least recallThreshold,
 * ranked by similarity × the layer's weight, the layer's best recallTopK; then all layers' picks
 * by that score, the best recallTopK overall. Ties: the higher importance × recency, then the
 * newer memory.
 */
export function retrieveSimilar(
  items: readonly LayeredItem[],
  p: LayeredParams,
  similarity: (item: LayeredItem) => number,
): Ranked[] {
  const k = p.recallTopK;
  const tie = new Map<number, number>();
  const order = (a: Ranked, b: Ranked) =>
    b.score - a.score ||
    (tie.get(b.item.id) ?? 0) - (tie.get(a.item.id) ?? 0) ||
    b.item.id - a.item.id;
  const picked: Ranked[] = [];
  for (const layer of LAYERS) {
    const lp = p.layers[layer];
    const ranked: Ranked[] = [];
    for (const item of items) {
      if (item.layer !== layer) continue;
      const s = similarity(item);
      if (s <= 0 || s < p.recallThreshold) continue;
      tie.set(item.id, score(item, p));
      ranked.push({ item, score: s * lp.weight });
    }
    ranked.sort(order);
    picked.push(...ranked.slice(0, k));
  }
  return picked.sort(order).slice(0, k);
}

export type ReflectionTrigger = "days" | "loss" | "strategy" | "regime" | "consistency";

/** What happened since the last day end that can call for a reflection. */
export interface ReflectionSignals {
  /** A trade opened the other direction (long after short, or short after long). */
  strategyChange: boolean;
  /** The market regime switched (up ↔ down). */
  regimeChange: boolean;
  /** A memory was stored whose consistency was below consistencyThreshold. */
  inconsistent: boolean;
}

export const NO_SIGNALS: ReflectionSignals = {
  strategyChange: false,
  regimeChange: false,
  inconsistent: false,
};

/**
 * Whether a reflection is due at this day end, and why (the first that holds): more than
 * reflectionEveryDays since the last one (or since the run started); equity down more than
 * reflectionLoss over the last lossWindowDays day ends (`equities`: equity at each past day end,
 * oldest first, this one last); a strategy change; a regime change; an inconsistent memory.
 */
export function reflectionDue(
  day: number,
  lastReflectionDay: number,
  equities: readonly number[],
  p: LayeredParams,
  signals: ReflectionSignals = NO_SIGNALS,
): ReflectionTrigger | null {
  if (day - lastReflectionDay > p.reflectionEveryDays) return "days";
  const now = equities[equities.length - 1];
  const then = equities[equities.length - 1 - p.lossWindowDays];
  if (
    now !== undefined &&
    then !== undefined &&
    then > 0 &&
    (then - now) / then > p.reflectionLoss
  ) {
    return "loss";
  }
  if (signals.strategyChange && p.strategyChangeTrigger) return "strategy";
  if (signals.regimeChange) return "regime";
  if (signals.inconsistent) return "consistency";
  return null;
}

/**
 * The days a memory stored in `layer` at `importance` lives when nothing touches it again: the
 * day-end maintenance (maintain) run on every day `isDayEnd` accepts, from the storing day 0, until
 * the memory is removed. Null when it outlives `maxDays`. For the lifetimes the parameters imply
 * (docs/memory-layered.md).
 */
export function memoryLifetimeDays(
  layer: Layer,
  importance: number,
  p: LayeredParams,
  isDayEnd: (day: number) => boolean = () => true,
  maxDays = 100_000,
): number | null {
  const items: LayeredItem[] = [
    { id: 1, layer, content: "", importance, ageDays: 0, day: 0, created: 0, line: 1 },
  ];
  for (let day = 0; day <= maxDays; day++) {
    if (!isDayEnd(day)) continue;
    maintain(items, day, p);
    if (items.length === 0) return day;
  }
  return null;
}
