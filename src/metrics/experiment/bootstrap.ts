import { figure } from "../figure.js";
import { checkSeed, DEFAULT_SEED, mulberry32, randomIndex } from "./prng.js";

/**
 * Percentile bootstrap interval of a mean (Efron & Tibshirani, "An Introduction to the Bootstrap",
 * 1993, ch. 13). docs/experiment-statistics.md works an example.
 */

/** Resampled means drawn by default. */
export const BOOTSTRAP_RESAMPLES = 10_000;
/** The confidence level of every interval by default. */
export const DEFAULT_CONFIDENCE = 0.95;

export interface BootstrapOptions {
  /** How many resampled means to draw (default 10,000). */
  resamples?: number;
  /** The PRNG seed, an integer 0 … 2³² − 1 (default 1). */
  seed?: number;
  /** 0 < confidence < 1 (default 0.95). */
  confidence?: number;
}

/**
 * How the resampled means were made: `exhaustive` lists every one of the nⁿ equally likely
 * resamples (when nⁿ is at most the resamples asked for: the exact bootstrap distribution, no
 * randomness); `monte-carlo` draws `resamples` of them with the seeded PRNG; `none` when there is
 * no interval.
 */
export type BootstrapMethod = "exhaustive" | "monte-carlo" | "none";

/** `{ low, high }` of the interval, or both null with the reason. */
export type Interval =
  | { low: number; high: number; reason: null }
  | { low: null; high: null; reason: string };

export interface BootstrapInterval {
  interval: Interval;
  confidence: number;
  method: BootstrapMethod;
  /** The number of resampled means the percentiles were read from (nⁿ when exhaustive). */
  resamples: number;
  /** The seed given (recorded even when the exhaustive method needed none). */
  seed: number;
}

export function resolveBootstrapOptions(
  options: BootstrapOptions = {},
): Required<BootstrapOptions> {
  const resamples = options.resamples ?? BOOTSTRAP_RESAMPLES;
  const confidence = options.confidence ?? DEFAULT_CONFIDENCE;
  if (!Number.isInteger(resamples) || resamples < 1)
    throw new RangeError(`resamples ${resamples} is not a whole number of at least 1`);
  if (!(confidence > 0 && confidence < 1))
    throw new RangeError(`confidence ${confidence} is not between 0 and 1 (0.95 is 95 %)`);
  return { resamples, confidence, seed: checkSeed(options.seed ?? DEFAULT_SEED) };
}

/**
 * The q-quantile of ascending `sorted`, interpolated linearly between order statistics at rank
 * h = (N − 1)·q (Hyndman & Fan type 7, the default of R and NumPy).
 */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return Number.NaN;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  const a = sorted[lo]!;
  return a + (h - lo) * (sorted[hi]! - a);
}

/** Every one of the nⁿ resamples' means, in odometer order of the index tuples. */
export function exhaustiveResampleMeans(values: readonly number[]): Float64Array {
  const n = values.length;
  const total = n ** n;
  const out = new Float64Array(total);
  const idx = new Array<number>(n).fill(0);
  for (let k = 0; k < total; k++) {
    let sum = 0;
    for (let j = 0; j < n; j++) sum += values[idx[j]!]!;
    out[k] = sum / n;
    for (let j = n - 1; j >= 0; j--) {
      idx[j]! += 1;
      if (idx[j]! < n) break;
      idx[j] = 0;
    }
  }
  return out;
}

/**
 * `resamples` means of n values drawn with replacement: resample b draws its n indices one after
 * the other from the PRNG seeded with `seed`, so anyone can redraw them.
 */
export function monteCarloResampleMeans(
  values: readonly number[],
  resamples: number,
  seed: number,
): Float64Array {
  const n = values.length;
  const rng = mulberry32(seed);
  const out = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let sum = 0;
    for (let j = 0; j < n; j++) sum += values[randomIndex(rng, n)]!;
    out[b] = sum / n;
  }
  return out;
}

/**
 * The percentile bootstrap interval of the mean of `values`: the (1 − c)/2 and (1 + c)/2
 * quantiles of the resampled means. Null with a reason for no value, one value (every resample
 * is that value: no spread to measure) or a value that is not finite.
 */
export function bootstrapMeanInterval(
  values: readonly number[],
  options?: BootstrapOptions,
): BootstrapInterval {
  const { resamples, seed, confidence } = resolveBootstrapOptions(options);
  const none = (reason: string): BootstrapInterval => ({
    interval: { low: null, high: null, reason },
    confidence,
    method: "none",
    resamples: 0,
    seed,
  });
  const n = values.length;
  if (n === 0) return none("no values");
  if (n === 1)
    return none("one value: every resample is that value, so there is no spread to measure");
  if (!values.every(Number.isFinite)) return none("a value is not a finite number");
  const exhaustive = n ** n <= resamples;
  const means = exhaustive
    ? exhaustiveResampleMeans(values)
    : monteCarloResampleMeans(values, resamples, seed);
  means.sort();
  const tail = (1 - confidence) / 2;
  // As any figure: a non-finite bound is no interval, with figure()'s reason; −0 is 0.
  const low = figure(quantileSorted(means, tail));
  const high = figure(quantileSorted(means, 1 - tail));
  if (low.reason !== null) return none(low.reason);
  if (high.reason !== null) return none(high.reason);
  return {
    interval: { low: low.value, high: high.value, reason: null },
    confidence,
    method: exhaustive ? "exhaustive" : "monte-carlo",
    resamples: means.length,
    seed,
  };
}
