/**
 * Pure-noise strategies for the overfitting statistics: one random-walk market, and strategies
 * that go long, short or flat at random. None has an edge, so any best-of-N Sharpe is luck.
 */

/** SplitMix32: a small seeded PRNG, uniform in [0, 1). */
export function splitMix32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return ((z ^ (z >>> 16)) >>> 0) / 4294967296;
  };
}

/** Standard normal draws by Box–Muller. */
export function gaussian(random: () => number): () => number {
  return () => {
    const u = 1 - random(); // (0, 1]: log(0) is never taken
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  };
}

/**
 * `strategies` per-bar return series over `bars` bars of one random walk (returns N(0, 1 %)). Each
 * strategy holds a position in {−1, 0, 1}, redrawn at random with probability `switchChance` per
 * bar, and earns position × the market's return of the next bar.
 */
export function noiseStrategies(
  seed: number,
  strategies: number,
  bars: number,
  switchChance = 0.05,
): Float64Array[] {
  const random = splitMix32(seed);
  const normal = gaussian(random);
  const market = new Float64Array(bars);
  for (let t = 0; t < bars; t++) market[t] = 0.01 * normal();
  const out: Float64Array[] = [];
  for (let s = 0; s < strategies; s++) {
    const r = new Float64Array(bars);
    let position = 0;
    for (let t = 0; t < bars; t++) {
      r[t] = position * market[t]!;
      if (random() < switchChance) position = Math.floor(random() * 3) - 1;
    }
    out.push(r);
  }
  return out;
}
