import { describe, expect, it } from "vitest";
import {
  binomial,
  blockSummary,
  CscvBlocksError,
  CscvInputError,
  probabilityOfOverfitting,
  probabilityOfOverfittingFromBlocks,
} from "../../../src/metrics/overfitting/pbo.js";
import { perBarSharpe } from "../../../src/metrics/overfitting/sharpe-stats.js";
import { gaussian, noiseStrategies, splitMix32 } from "./noise-strategies.js";

const mean = (r: ArrayLike<number>) => {
  let s = 0;
  for (let i = 0; i < r.length; i++) s += r[i]!;
  return s / r.length;
};

describe("probabilityOfOverfitting (docs example 5)", () => {
  // Three combinations over four bars, four blocks of one bar, ranked by their mean return.
  const returns = [
    [4, 0, -2, 1], // A
    [1, 2, 1, 0], // B
    [-1, 3, 2, -2], // C
  ];
  const result = probabilityOfOverfitting({ returns, blocks: 4, metric: mean });

  it("ranks the in-sample best out of sample in each of the C(4, 2) = 6 splits", () => {
    expect(result.splits).toBe(6);
    // In-sample blocks {0,1} {0,2} {1,2} {0,3} {1,3} {2,3}; the best (A on the {0,2} tie, as the
    // first) and its out-of-sample rank: 1, 1.5 (tied with C), 1, 1, 2.5 (tied with A), 2 of 3.
    expect(result.chosen).toEqual([0, 0, 2, 0, 1, 1]);
    expect(result.inSample).toEqual([2, 1, 2.5, 2.5, 1, 0.5]);
    expect(result.outOfSample).toEqual([-0.5, 0.5, -1.5, -1, 1, 1.5]);
    // ω = rank / 4, λ = ln(ω / (1 − ω)).
    const want = [1 / 3, 0.6, 1 / 3, 1 / 3, 5 / 3, 1].map(Math.log);
    for (const [i, l] of result.logits.entries())
      expect(Math.abs(l - want[i]!)).toBeLessThan(1e-12);
  });

  it("counts λ ≤ 0 as overfit: PBO 5/6, and 3 of 6 winners lost out of sample", () => {
    expect(Math.abs((result.pbo.value as number) - 5 / 6)).toBeLessThan(1e-12);
    expect(result.probabilityOfLoss.value).toBe(0.5);
    expect(result).toMatchObject({ blocks: 4, bars: 4, combinations: 3 });
  });
});

describe("probabilityOfOverfitting on the default per-bar Sharpe", () => {
  it("computes the same splits from block summaries as from the bars themselves", () => {
    // 101 bars in 6 blocks: sizes 16 and 17, so the merge of unequal blocks is exercised.
    const returns = noiseStrategies(11, 12, 101, 0.2);
    const fast = probabilityOfOverfitting({ returns, blocks: 6 });
    const slow = probabilityOfOverfitting({ returns, blocks: 6, metric: (r) => perBarSharpe(r) });
    expect(fast.splits).toBe(binomial(6, 3));
    expect(fast.chosen).toEqual(slow.chosen);
    expect(fast.pbo).toEqual(slow.pbo);
    for (const [i, v] of fast.inSample.entries())
      expect(Math.abs(v - slow.inSample[i]!)).toBeLessThan(1e-12);
    for (const [i, v] of fast.outOfSample.entries())
      expect(Math.abs(v - slow.outOfSample[i]!)).toBeLessThan(1e-12);
    // Passing perBarSharpe itself takes the summary path too.
    expect(probabilityOfOverfitting({ returns, blocks: 6, metric: perBarSharpe })).toEqual(fast);
  });

  it("is low when the in-sample best has a real edge", () => {
    // Twenty combinations with true per-bar Sharpe 0, 0.01, …, 0.19 over 2000 bars of noise.
    const normal = gaussian(splitMix32(7));
    const returns = Array.from({ length: 20 }, (_, k) =>
      Float64Array.from({ length: 2000 }, () => 0.01 * (normal() + k * 0.01)),
    );
    const result = probabilityOfOverfitting({ returns, blocks: 16 });
    expect(result.splits).toBe(12870);
    expect(result.pbo.value).toBeLessThan(0.05);
    expect(result.probabilityOfLoss.value).toBeLessThan(0.05);
  });
});

describe("probabilityOfOverfitting's checks", () => {
  const returns = [
    [1, 2, 3, 4],
    [4, 3, 2, 1],
  ];

  it("refuses a block count that cannot be split in halves, saying what works", () => {
    for (const blocks of [0, 1, 3, 2.5, 32, Number.NaN])
      expect(() => probabilityOfOverfitting({ returns, blocks })).toThrow(CscvBlocksError);
    expect(() => probabilityOfOverfitting({ returns, blocks: 5 })).toThrow(
      /even whole number from 2 to 30 \(16 is usual\); got 5/,
    );
  });

  it("refuses return series of different lengths", () => {
    expect(() => probabilityOfOverfitting({ returns: [[1, 2], [1]], blocks: 2 })).toThrow(
      CscvInputError,
    );
  });

  it("is null with its reason for one combination or fewer bars than blocks", () => {
    const one = probabilityOfOverfitting({ returns: [[1, 2, 3, 4]], blocks: 2 });
    expect(one.pbo.reason).toMatch(/too few trials: 1/);
    expect(one.splits).toBe(0);
    const short = probabilityOfOverfitting({ returns, blocks: 6 });
    expect(short.pbo.reason).toMatch(/too few bars: 4 returns cannot fill 6 blocks/);
    expect(probabilityOfOverfitting({ returns: [], blocks: 2 }).pbo.value).toBeNull();
  });

  it("ranks a metric that is NaN below every number", () => {
    const result = probabilityOfOverfitting({
      returns: [
        [1, 1],
        [2, 2],
      ],
      blocks: 2,
      metric: (r) => (r[0] === 2 ? Number.NaN : 1),
    });
    // The NaN combination never wins; the other wins and ranks 2 of 2 out of sample.
    expect(result.chosen).toEqual([0, 0]);
    expect(result.pbo.value).toBe(0);
  });
});

describe("probabilityOfOverfittingFromBlocks", () => {
  it("gives probabilityOfOverfitting's figures from block summaries alone", () => {
    for (const blocks of [2, 8, 16]) {
      const returns = noiseStrategies(blocks, 30, 999);
      const direct = probabilityOfOverfitting({ returns, blocks });
      const summaries = returns.map((r) => blockSummary(r, blocks));
      expect(probabilityOfOverfittingFromBlocks({ summaries, bars: 999, blocks })).toEqual(direct);
    }
  });

  it("refuses a summary over other blocks", () => {
    const s = blockSummary(new Float64Array(100), 8);
    expect(() =>
      probabilityOfOverfittingFromBlocks({ summaries: [s], bars: 100, blocks: 16 }),
    ).toThrow(CscvInputError);
    expect(() => blockSummary(new Float64Array(100), 7)).toThrow(CscvBlocksError);
  });
});
