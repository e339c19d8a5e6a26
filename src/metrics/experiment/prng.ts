/**
 * The experiment statistics' only source of randomness: a seeded generator, so the same seed
 * gives the same bootstrap intervals and p-values on every machine. Mulberry32: 32-bit state,
 * period 2³², plenty for 10⁵–10⁶ draws, and exactly reproducible in any language that has 32-bit
 * integer multiplication.
 */
import { mulberry32 as generator } from "../../util/prng.js";

/** The seed used when none is given; every result records the one it used. */
export const DEFAULT_SEED = 1;

/** Draws a number in [0, 1). */
export type Rng = () => number;

/** Seeds are recorded in the output, so they must survive JSON: integers 0 … 2³² − 1. */
export function checkSeed(seed: number): number {
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffff_ffff)
    throw new RangeError(`seed ${seed} is not an integer from 0 to 4294967295: pass one that is`);
  return seed;
}

/** The project's seeded generator (util/prng.ts), from a checked seed. */
export function mulberry32(seed: number): Rng {
  return generator(checkSeed(seed));
}

/** An index 0 … n − 1, each equally likely (n is far below 2³², so the bias is nil). */
export function randomIndex(rng: Rng, n: number): number {
  return Math.floor(rng() * n);
}
