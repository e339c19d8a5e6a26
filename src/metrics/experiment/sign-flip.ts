import { type Figure, figure, noFigure } from "../figure.js";
import { checkSeed, DEFAULT_SEED, mulberry32 } from "./prng.js";

/**
 * Two-sided paired sign-flip permutation test of "no difference" (Fisher, 1935; Good,
 * "Permutation, Parametric and Bootstrap Tests of Hypotheses", 2005): under the null each
 * cell − baseline difference is as likely to have the other sign, so its statistic |Σ dᵢ| is
 * compared with those of the 2ⁿ sign patterns. docs/experiment-statistics.md works an example.
 */

/** Up to this many pairs every one of the 2ⁿ patterns is counted (2¹⁶ = 65,536). */
export const EXACT_SIGN_FLIP_MAX_PAIRS = 16;
/** Random patterns drawn beyond that, by default. */
export const SIGN_FLIP_PERMUTATIONS = 10_000;

/**
 * A pattern's |Σ| ties the observed one within this share of Σ|dᵢ|: sums of the same numbers
 * in another order can differ in the last bits, and a true tie must count.
 */
const TIE_TOLERANCE = 1e-12;

export type SignFlipMethod = "exact" | "monte-carlo" | "none";

export interface SignFlipTest {
  /** P(|Σ sᵢdᵢ| ≥ |Σ dᵢ|) under random signs sᵢ = ±1. */
  p: Figure;
  /** `exact`: all 2ⁿ patterns; `monte-carlo`: `permutations` random ones, p = (1 + hits)/(1 + B). */
  method: SignFlipMethod;
  pairs: number;
  /** Patterns counted: 2ⁿ when exact, B when Monte Carlo, 0 when none. */
  permutations: number;
  /** The PRNG seed of a Monte Carlo test; null when exact or none (no randomness used). */
  seed: number | null;
  /**
   * The smallest p the test could give with these pairs: 2 / 2^(pairs that are not 0) when
   * exact, 1 / (1 + B) when Monte Carlo. Above the significance level, no result can be
   * significant.
   */
  smallestP: number | null;
}

export interface SignFlipOptions {
  /** Random sign patterns drawn beyond 16 pairs (default 10,000). */
  permutations?: number;
  /** The PRNG seed, an integer 0 … 2³² − 1 (default 1). */
  seed?: number;
}

export function signFlipTest(
  differences: readonly number[],
  options: SignFlipOptions = {},
): SignFlipTest {
  const n = differences.length;
  const none = (reason: string): SignFlipTest => ({
    p: noFigure(reason),
    method: "none",
    pairs: n,
    permutations: 0,
    seed: null,
    smallestP: null,
  });
  if (n === 0) return none("no pairs");
  if (!differences.every(Number.isFinite)) return none("a difference is not a finite number");
  let observed = 0;
  let scale = 0;
  for (const d of differences) {
    observed += d;
    scale += Math.abs(d);
  }
  const threshold = Math.abs(observed) - TIE_TOLERANCE * scale;
  const nonZero = differences.filter((d) => d !== 0).length;
  if (n <= EXACT_SIGN_FLIP_MAX_PAIRS) {
    const total = 2 ** n;
    let hits = 0;
    for (let mask = 0; mask < total; mask++) {
      let sum = 0;
      for (let i = 0; i < n; i++) sum += mask & (1 << i) ? -differences[i]! : differences[i]!;
      if (Math.abs(sum) >= threshold) hits++;
    }
    return {
      p: figure(hits / total),
      method: "exact",
      pairs: n,
      permutations: total,
      seed: null,
      smallestP: Math.min(1, 2 / 2 ** nonZero),
    };
  }
  const permutations = options.permutations ?? SIGN_FLIP_PERMUTATIONS;
  if (!Number.isInteger(permutations) || permutations < 1)
    throw new RangeError(`permutations ${permutations} is not a whole number of at least 1`);
  const seed = checkSeed(options.seed ?? DEFAULT_SEED);
  const rng = mulberry32(seed);
  let hits = 0;
  for (let b = 0; b < permutations; b++) {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += rng() < 0.5 ? -differences[i]! : differences[i]!;
    if (Math.abs(sum) >= threshold) hits++;
  }
  return {
    // The observed pattern counts as one of the draws, so p is never 0 (Phipson & Smyth, 2010).
    p: figure((1 + hits) / (1 + permutations)),
    method: "monte-carlo",
    pairs: n,
    permutations,
    seed,
    smallestP: 1 / (1 + permutations),
  };
}
