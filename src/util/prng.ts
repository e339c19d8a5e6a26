/**
 * Deterministic pseudo-random numbers in [0, 1) (mulberry32): the same seed draws the same
 * sequence on every machine, so a sweep's random sample, a bench's series and a test's draws can
 * be made again from the seed alone. Not for anything secret.
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
