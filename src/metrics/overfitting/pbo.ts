import { type Figure, figure, noFigure } from "../figure.js";
import { perBarSharpe, sharpeOf } from "./sharpe-stats.js";

/**
 * The Probability of Backtest Overfitting by combinatorially symmetric cross-validation (Bailey,
 * Borwein, López de Prado & Zhu). The T bars are cut into S blocks; each of the C(S, S/2) ways to
 * pick half the blocks is one split: the picked blocks are in-sample, the others out-of-sample.
 * In each split the combination with the best in-sample metric is found, its relative rank
 * ω ∈ (0, 1) among the out-of-sample metrics taken, and its logit λ = ln(ω / (1 − ω)). PBO is the
 * share of splits with λ ≤ 0: the in-sample winner did no better than the median out of sample.
 */

/** More blocks than this cannot be enumerated (C(32, 16) ≈ 6·10⁸ splits), nor kept in a bitmask. */
export const MAX_CSCV_BLOCKS = 30;

/** `blocks` (S) is not usable whatever the data: the user's setting is wrong. */
export class CscvBlocksError extends Error {
  override readonly name = "CscvBlocksError";
  readonly exitCode = 2;
}

/** The return series do not line up: a caller's bug, not a user's mistake. */
export class CscvInputError extends Error {
  override readonly name = "CscvInputError";
}

export interface PboResult {
  /** Share of splits whose in-sample best ranked at or below the median out of sample. */
  pbo: Figure;
  /** Share of splits whose in-sample best had a negative out-of-sample metric. */
  probabilityOfLoss: Figure;
  /** λ of each split, in split order (blocks picked in lexicographic order). */
  logits: number[];
  /** The in-sample best's index, and its metric in and out of sample, per split. */
  chosen: number[];
  inSample: number[];
  outOfSample: number[];
  /** C(S, S/2); 0 when nothing was computed. */
  splits: number;
  blocks: number;
  bars: number;
  combinations: number;
}

/** C(n, k), exact for the sizes used here. */
export function binomial(n: number, k: number): number {
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return Math.round(c);
}

/** Checks S alone: an even whole number from 2 to MAX_CSCV_BLOCKS. */
export function checkCscvBlocks(blocks: number): void {
  if (!Number.isInteger(blocks) || blocks < 2 || blocks > MAX_CSCV_BLOCKS || blocks % 2 !== 0)
    throw new CscvBlocksError(
      `CSCV blocks must be an even whole number from 2 to ${MAX_CSCV_BLOCKS} (16 is usual); ` +
        `got ${blocks}. Half the blocks train and half test, so an odd count cannot be split.`,
    );
}

/**
 * PBO over one per-bar return series per combination (equal lengths). `metric` (default: per-bar
 * Sharpe, computed from block summaries) is given each split's bars in time order, in an array
 * that is reused: copy it to keep it. Throws CscvBlocksError for an unusable S, CscvInputError for
 * series of different lengths; the figures are null with a reason for fewer than 2 combinations
 * or fewer bars than blocks.
 */
export function probabilityOfOverfitting(input: {
  returns: readonly ArrayLike<number>[];
  blocks: number;
  metric?: (r: ArrayLike<number>) => number;
}): PboResult {
  const { returns, blocks } = input;
  checkCscvBlocks(blocks);
  const combinations = returns.length;
  const bars = returns[0]?.length ?? 0;
  returns.forEach((r, i) => {
    if (r.length !== bars)
      throw new CscvInputError(
        `combination ${i} has ${r.length} returns and combination 0 has ${bars}: every ` +
          "combination's return series must cover the same bars",
      );
  });
  const unusable = tooFew(combinations, bars, blocks);
  if (unusable !== null) return unusable;
  const edges = blockEdges(bars, blocks);
  const score =
    input.metric === undefined || input.metric === perBarSharpe
      ? sharpeScorer(
          returns.map((r) => summarizeBlocks(r, edges)),
          edges,
        )
      : metricScorer(returns, edges, input.metric);
  return cscv(score, combinations, blocks, bars);
}

/** One combination's returns summarised per CSCV block: each block's mean and sum of squared
 * deviations from it. S numbers of each kind, whatever the number of bars. */
export interface BlockSummary {
  means: Float64Array;
  m2s: Float64Array;
}

/** A series' block summary for `blocks` blocks over its bars (as probabilityOfOverfitting cuts
 * them), so that PBO by per-bar Sharpe can be computed without holding every series at once. */
export function blockSummary(returns: ArrayLike<number>, blocks: number): BlockSummary {
  checkCscvBlocks(blocks);
  return summarizeBlocks(returns, blockEdges(returns.length, blocks));
}

/**
 * probabilityOfOverfitting with the default metric (per-bar Sharpe), from each combination's
 * block summary over `bars` returns: the same figures, in N·S numbers of memory instead of N·T.
 */
export function probabilityOfOverfittingFromBlocks(input: {
  summaries: readonly BlockSummary[];
  bars: number;
  blocks: number;
}): PboResult {
  const { summaries, bars, blocks } = input;
  checkCscvBlocks(blocks);
  summaries.forEach((s, i) => {
    if (s.means.length !== blocks || s.m2s.length !== blocks)
      throw new CscvInputError(
        `combination ${i} is summarised over ${s.means.length} blocks, not ${blocks}`,
      );
  });
  const unusable = tooFew(summaries.length, bars, blocks);
  if (unusable !== null) return unusable;
  return cscv(sharpeScorer(summaries, blockEdges(bars, blocks)), summaries.length, blocks, bars);
}

function emptyResult(
  combinations: number,
  blocks: number,
  bars: number,
  reason: string,
): PboResult {
  return {
    pbo: noFigure(reason),
    probabilityOfLoss: noFigure(reason),
    logits: [],
    chosen: [],
    inSample: [],
    outOfSample: [],
    splits: 0,
    blocks,
    bars,
    combinations,
  };
}

/** The null result when there is nothing to split, else null. */
function tooFew(combinations: number, bars: number, blocks: number): PboResult | null {
  if (combinations < 2)
    return emptyResult(
      combinations,
      blocks,
      bars,
      `too few trials: ${combinations}, and a best-of-N figure needs at least 2`,
    );
  if (bars < blocks)
    return emptyResult(
      combinations,
      blocks,
      bars,
      `too few bars: ${bars} returns cannot fill ${blocks} blocks of at least one bar`,
    );
  return null;
}

/**
 * Every split: the in-sample best, its out-of-sample rank and logit. A split's out-of-sample half
 * is another split's in-sample half: each half's scores are computed once, for both.
 */
function cscv(score: Scorer, combinations: number, blocks: number, bars: number): PboResult {
  const result = emptyResult(combinations, blocks, bars, "");
  const masks = [...halfMasks(blocks)];
  const splits = masks.length;
  const splitOf = new Map<number, number>();
  masks.forEach((mask, k) => {
    splitOf.set(mask, k);
  });
  const logits = new Array<number>(splits).fill(0);
  const chosen = new Array<number>(splits).fill(0);
  const inSample = new Array<number>(splits).fill(0);
  const outOfSample = new Array<number>(splits).fill(0);
  const done = new Uint8Array(splits);
  const one = new Float64Array(combinations);
  const other = new Float64Array(combinations);
  const full = (1 << blocks) - 1;
  let overfit = 0;
  let losses = 0;
  const split = (k: number, isScores: Float64Array, oosScores: Float64Array) => {
    const best = argmax(isScores);
    const omega = midrank(oosScores, best) / (combinations + 1);
    const logit = Math.log(omega / (1 - omega));
    logits[k] = logit;
    chosen[k] = best;
    inSample[k] = isScores[best]!;
    outOfSample[k] = oosScores[best]!;
    done[k] = 1;
    if (logit <= 0) overfit++;
    if (oosScores[best]! < 0) losses++;
  };
  for (let k = 0; k < splits; k++) {
    if (done[k] === 1) continue;
    const mask = masks[k]!;
    const rest = full & ~mask;
    score(mask, one);
    score(rest, other);
    split(k, one, other);
    const twin = splitOf.get(rest);
    if (twin !== undefined && done[twin] === 0) split(twin, other, one);
  }
  return {
    ...result,
    logits,
    chosen,
    inSample,
    outOfSample,
    splits,
    pbo: figure(overfit / splits),
    probabilityOfLoss: figure(losses / splits),
  };
}

/** Block b covers bars [edges[b], edges[b + 1]): sizes differ by at most one bar. */
function blockEdges(bars: number, blocks: number): Int32Array {
  const edges = new Int32Array(blocks + 1);
  for (let b = 0; b <= blocks; b++) edges[b] = Math.floor((b * bars) / blocks);
  return edges;
}

function summarizeBlocks(r: ArrayLike<number>, edges: Int32Array): BlockSummary {
  const blocks = edges.length - 1;
  const means = new Float64Array(blocks);
  const m2s = new Float64Array(blocks);
  for (let b = 0; b < blocks; b++) {
    const count = edges[b + 1]! - edges[b]!;
    let sum = 0;
    for (let i = edges[b]!; i < edges[b + 1]!; i++) sum += r[i]!;
    const mean = sum / count;
    let ss = 0;
    for (let i = edges[b]!; i < edges[b + 1]!; i++) ss += (r[i]! - mean) ** 2;
    means[b] = mean;
    m2s[b] = ss;
  }
  return { means, m2s };
}

/** Every S-bit mask with S/2 bits set, in increasing order (the picked blocks, lexicographic). */
function* halfMasks(blocks: number): Generator<number> {
  const half = blocks / 2;
  // Gosper's hack: the next larger integer with the same number of set bits.
  let mask = (1 << half) - 1;
  const limit = 1 << blocks;
  while (mask < limit) {
    yield mask;
    const low = mask & -mask;
    const ripple = mask + low;
    mask = (((ripple ^ mask) >>> 2) / low) | ripple;
  }
}

type Scorer = (mask: number, out: Float64Array) => void;

/**
 * Per-bar Sharpe of the bars in the masked blocks, from each block's count, mean and sum of
 * squared deviations, merged pairwise (Chan et al.): no pass over the bars per split.
 */
function sharpeScorer(summaries: readonly BlockSummary[], edges: Int32Array): Scorer {
  const blocks = edges.length - 1;
  const n = summaries.length;
  const count = new Float64Array(blocks);
  for (let b = 0; b < blocks; b++) count[b] = edges[b + 1]! - edges[b]!;
  // One flat array of each kind, and each mask's blocks listed once rather than tested per
  // combination: the same sums in the same order, a quarter of the time.
  const means = new Float64Array(n * blocks);
  const m2s = new Float64Array(n * blocks);
  summaries.forEach((s, c) => {
    means.set(s.means, c * blocks);
    m2s.set(s.m2s, c * blocks);
  });
  const picked = new Int32Array(blocks);
  return (mask, out) => {
    let k = 0;
    for (let b = 0; b < blocks; b++) if ((mask & (1 << b)) !== 0) picked[k++] = b;
    for (let c = 0; c < n; c++) {
      const at = c * blocks;
      let seen = 0;
      let mean = 0;
      let m2 = 0;
      for (let q = 0; q < k; q++) {
        const b = picked[q]!;
        const nb = count[b]!;
        const total = seen + nb;
        const delta = means[at + b]! - mean;
        mean += (delta * nb) / total;
        m2 += m2s[at + b]! + (delta * delta * seen * nb) / total;
        seen = total;
      }
      out[c] = seen < 2 ? Number.NaN : sharpeOf(mean, Math.sqrt(m2 / (seen - 1)));
    }
  };
}

/** Any metric: the masked blocks' bars are copied out, in order, for each combination. */
function metricScorer(
  returns: readonly ArrayLike<number>[],
  edges: Int32Array,
  metric: (r: ArrayLike<number>) => number,
): Scorer {
  const blocks = edges.length - 1;
  const buffer = new Float64Array(returns[0]?.length ?? 0);
  return (mask, out) => {
    returns.forEach((r, c) => {
      let n = 0;
      for (let b = 0; b < blocks; b++) {
        if ((mask & (1 << b)) === 0) continue;
        for (let i = edges[b]!; i < edges[b + 1]!; i++) buffer[n++] = r[i]!;
      }
      out[c] = metric(buffer.subarray(0, n));
    });
  };
}

/** A metric that is NaN cannot win nor beat anything: it ranks as −Infinity. */
const rankable = (v: number): number => (Number.isNaN(v) ? Number.NEGATIVE_INFINITY : v);

/** The first index of the largest value. */
function argmax(xs: Float64Array): number {
  let best = 0;
  for (let i = 1; i < xs.length; i++) if (rankable(xs[i]!) > rankable(xs[best]!)) best = i;
  return best;
}

/** Rank of xs[at] from 1 (worst) to n (best); tied values share the mean of their ranks. */
function midrank(xs: Float64Array, at: number): number {
  const v = rankable(xs[at]!);
  let below = 0;
  let tied = 0;
  for (let i = 0; i < xs.length; i++) {
    const x = rankable(xs[i]!);
    if (x < v) below++;
    else if (x === v) tied++;
  }
  return below + (tied + 1) / 2;
}
