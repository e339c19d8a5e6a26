import { describe, expect, it } from "vitest";
import { benchmarkReturns, computeBeta } from "../../src/metrics/alpha-beta.js";
import { mulberry32 } from "../../src/util/prng.js";

/** A seeded random walk from 100 (util/prng.ts), each step up to ±`step` of the last value. */
function walk(n: number, seed: number, step = 0.03): Float64Array {
  const rnd = mulberry32(seed);
  const out = new Float64Array(n);
  let v = 100;
  for (let i = 0; i < n; i++) {
    out[i] = v;
    v *= 1 + (rnd() - 0.5) * 2 * step;
  }
  return out;
}

describe("beta with the benchmark's part computed once", () => {
  it("is the inline computation to the last bit, for many curves against one benchmark", () => {
    const benchmark = walk(2000, 1);
    const known = benchmarkReturns(benchmark);
    expect(known).not.toBeNull();
    for (let seed = 2; seed < 40; seed++) {
      const equity = walk(2000, seed, 0.01 + seed / 1000);
      const inline = computeBeta(equity, benchmark);
      expect(typeof inline).toBe("number");
      expect(Object.is(computeBeta(equity, benchmark, known), inline)).toBe(true);
    }
  });

  it("gives the same reasons: a benchmark at 0, a flat one, a curve at 0, other lengths", () => {
    const equity = walk(50, 3);
    const zero = walk(50, 4);
    zero[20] = 0;
    const flat = new Float64Array(50).fill(100);
    const broke = walk(50, 5);
    broke[30] = -1;
    const cases: [Float64Array, Float64Array][] = [
      [equity, zero],
      [equity, flat],
      [broke, walk(50, 6)],
      [equity.subarray(0, 40), walk(50, 7)],
      [equity.subarray(0, 2), walk(2, 8)],
    ];
    for (const [e, b] of cases) {
      const inline = computeBeta(e, b);
      expect(typeof inline).toBe("object");
      expect(computeBeta(e, b, benchmarkReturns(b))).toEqual(inline);
    }
  });
});
