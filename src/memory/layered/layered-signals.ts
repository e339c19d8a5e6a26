import type { MarketData } from "../../engine/types.js";
import { fold } from "../recall/tokenize.js";
import { IMPORTANCE_FACTORS, type ImportanceFactor, type LayeredParams } from "./layered-math.js";

// The deterministic stand-ins for the judgements INVESTOR-BENCH leaves to a model: the five
// importance factors, the market regime and a decision's consistency with the memories shown.
// Pure: they read the bars up to the index they are given, never later ones.

export type Factors = Record<ImportanceFactor, number>;

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);
const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** The importance of a memory: the sum of each factor (in [0, 1]) times its points, at most 100,
 * rounded to 1e-6 (the value logged and replayed). */
export function scoreImportance(x: Factors, p: LayeredParams): number {
  let sum = 0;
  for (const f of IMPORTANCE_FACTORS) sum += clamp01(x[f]) * p.importanceWeights[f];
  return round6(Math.min(100, sum));
}

/** The bar's largest |close-to-close return| over the symbols with a bar at `index` and one
 * before it, and the largest volume over its trailing `window`-bar mean (0 when unknown). `only`:
 * the symbols to read (all when absent). */
export function barSignals(
  data: MarketData,
  index: number,
  window: number,
  only?: ReadonlySet<string>,
): { move: number; volumeRatio: number } {
  let move = 0;
  let volumeRatio = 0;
  data.series.forEach((s, k) => {
    if (only !== undefined && !only.has(s.symbol)) return;
    const j = data.barIndex[k]?.[index] ?? -1;
    if (j < 1) return;
    const prev = s.close[j - 1] ?? 0;
    const close = s.close[j] ?? 0;
    if (prev > 0) move = Math.max(move, Math.abs(close / prev - 1));
    const from = Math.max(0, j - window);
    let sum = 0;
    for (let i = from; i < j; i++) sum += s.volume[i] ?? 0;
    const mean = sum / (j - from);
    if (mean > 0) volumeRatio = Math.max(volumeRatio, (s.volume[j] ?? 0) / mean);
  });
  return { move, volumeRatio };
}

/** Market impact in [0, 1]: the bar's move over `impactMove`. */
export function marketImpact(move: number, p: LayeredParams): number {
  return clamp01(move / p.impactMove);
}

/** Urgency in [0, 1]: how far the bar's volume ratio is from 1 (usual) to urgencyVolumeRatio. */
export function urgency(volumeRatio: number, p: LayeredParams): number {
  return clamp01((volumeRatio - 1) / (p.urgencyVolumeRatio - 1));
}

/** The names of `names` the text mentions (whole words, case folded). */
export function named(text: string, names: readonly string[]): string[] {
  const words = new Set(fold(text).match(/[\p{L}\p{N}._-]+/gu) ?? []);
  return names.filter((s) => words.has(fold(s)));
}

/** Relevance in [0, 1]: 1 when the text names a held symbol, 0.5 another of the run's symbols,
 * else 0 (whole words, case folded). */
export function relevance(
  text: string,
  held: readonly string[],
  symbols: readonly string[],
): number {
  if (named(text, held).length > 0) return 1;
  return named(text, symbols).length > 0 ? 0.5 : 0;
}

/** The mean return of the symbols with `window` bars before `index` (null: none has). */
export function regimeReturn(data: MarketData, index: number, window: number): number | null {
  let sum = 0;
  let n = 0;
  data.series.forEach((s, k) => {
    const j = data.barIndex[k]?.[index] ?? -1;
    if (j < window) return;
    const then = s.close[j - window] ?? 0;
    if (then <= 0) return;
    sum += (s.close[j] ?? 0) / then - 1;
    n++;
  });
  return n === 0 ? null : sum / n;
}

export type Regime = "up" | "down";

/** The regime after a window return: above +threshold up, below -threshold down, else the last. */
export function nextRegime(
  last: Regime | null,
  ret: number | null,
  p: LayeredParams,
): Regime | null {
  if (ret === null) return last;
  if (ret > p.regimeThreshold) return "up";
  if (ret < -p.regimeThreshold) return "down";
  return last;
}

const POSITIVE = new Set(
  "bull bullish buy bought long up rise rising rose gain gains profit profitable strong strength breakout rally rallied win winner winners beat higher support upside recover recovered".split(
    " ",
  ),
);
const NEGATIVE = new Set(
  "bear bearish sell sold short down fall falling fell loss losses lose losing weak weakness breakdown drop dropped decline declined miss lower resistance downside crash stop stopped".split(
    " ",
  ),
);

/** A text's sentiment: +1 more positive words than negative, -1 fewer, 0 as many. */
export function sentiment(text: string): -1 | 0 | 1 {
  let score = 0;
  for (const w of fold(text).match(/\p{L}+/gu) ?? []) {
    if (POSITIVE.has(w)) score++;
    else if (NEGATIVE.has(w)) score--;
  }
  return score > 0 ? 1 : score < 0 ? -1 : 0;
}

/** Sentiment alignment: 1 same side, 0 opposite sides, 0.5 when either is neutral. */
export function alignment(a: -1 | 0 | 1, b: -1 | 0 | 1): number {
  if (a === 0 || b === 0) return 0.5;
  return a === b ? 1 : 0;
}

/** Mean over the memories of w × similarity + (1 - w) × sentiment alignment; null with none. */
export function consistency(
  pairs: readonly { similarity: number; alignment: number }[],
  p: LayeredParams,
): number | null {
  if (pairs.length === 0) return null;
  const w = p.consistencySimilarityWeight;
  let sum = 0;
  for (const x of pairs) sum += w * x.similarity + (1 - w) * x.alignment;
  return round6(sum / pairs.length);
}
