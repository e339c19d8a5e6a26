import { describe, expect, it } from "vitest";
import { compareCells } from "../../../src/metrics/experiment/compare.js";
import type { ExperimentMetric, ExperimentRun } from "../../../src/metrics/experiment/metrics.js";
import {
  comparisonSentence,
  decimalsFor,
  formatAmount,
  formatP,
} from "../../../src/metrics/experiment/sentence.js";

/** Runs on windows w0, w1, … with `repeats` repeats each, in that order. */
const runs = (values: (number | null)[], repeats = 1, metric: ExperimentMetric = "returnPct") =>
  values.map(
    (v, i): ExperimentRun => ({
      window: `w${Math.floor(i / repeats)}`,
      repeat: i % repeats,
      metrics: { [metric]: v },
    }),
  );

const sentence = (
  cell: (number | null)[],
  baseline: (number | null)[],
  repeats = 1,
  metric: ExperimentMetric = "returnPct",
) =>
  compareCells(
    [
      {
        cell: "layered",
        baseline: "none",
        cellRuns: runs(cell, repeats, metric),
        baselineRuns: runs(baseline, repeats, metric),
      },
    ],
    metric,
  )[0]!.sentence;

describe("comparisonSentence", () => {
  it("Example 6: alone, and after correction with a second cell", () => {
    const none = runs([1, -0.5, 2, 0.5], 2);
    const layered = runs([3, 0.5, 3, 0], 2);
    const files = runs([1.5, -1, 2, 0.5], 2);
    const one = compareCells(
      [{ cell: "layered", baseline: "none", cellRuns: layered, baselineRuns: none }],
      "returnPct",
    );
    expect(one[0]!.sentence).toBe(
      "layered beat none on 3 of 4 pairs (2 windows × 2 repeats); difference +0.9% " +
        "(CI -0.1..1.8), p=0.25: not significant, and cannot be: with 4 pairs the smallest " +
        "possible p is 0.13",
    );
    const two = compareCells(
      [
        { cell: "layered", baseline: "none", cellRuns: layered, baselineRuns: none },
        { cell: "files", baseline: "none", cellRuns: files, baselineRuns: none },
      ],
      "returnPct",
    );
    // files: d = (0.5, −0.5, 0, 0), p = 1; BH over 2 gives layered min(2·0.25/1, 2·1/2) = 0.5.
    expect(two[0]!.pAdjusted.value).toBeCloseTo(0.5, 9);
    expect(two[1]!.pAdjusted.value).toBe(1);
    expect(two[0]!.comparisons).toBe(2);
    expect(two[0]!.sentence).toContain(
      "; difference +0.9% (CI -0.1..1.8), p=0.5 after correction:",
    );
    expect(two[1]!.sentence).toMatch(
      /^files beat none on 1 of 4 pairs \(2 windows × 2 repeats\), tied on 2; difference 0\.00% /,
    );
  });

  it("says significant when it is, with the issue's wording otherwise", () => {
    // Eight windows, every difference positive and distinct: exact p = 2/2⁸ = 0.0078125.
    const base = [1, -2, 3, 0.5, -1, 2, 4, -3];
    const d = [1.1, 0.9, 1.4, 0.6, 1.2, 0.8, 1.3, 0.7];
    expect(
      sentence(
        base.map((b, i) => b + d[i]!),
        base,
      ),
    ).toMatch(
      // 8⁸ resamples are too many to list: the interval is drawn, so only its shape is checked.
      /^layered beat none on 8 of 8 windows; difference \+1\.0% \(CI 0\.\d\.\.1\.\d\), p=0\.0078: significant at 5%$/,
    );
  });

  it("says nothing can be compared with no pair, and nothing concluded from one", () => {
    expect(sentence([null, 2], [1, null])).toBe(
      "layered and none have no window and repeat with a Return % figure on both: nothing can " +
        "be compared",
    );
    expect(sentence([3], [1])).toBe(
      "layered beat none on 1 of 1 window; difference +2.0%: one pair cannot tell a difference " +
        "from chance, so nothing can be concluded",
    );
  });

  it("says there is no difference when every pair is equal", () => {
    expect(sentence([1, 2, 3], [1, 2, 3])).toBe(
      "layered and none had the same Return % on all 3 windows: no difference",
    );
  });

  it("says the interval is one value when every pair differs by the same", () => {
    // Six equal differences: exact p = 2/2⁶ = 0.03125, significant; no spread to bound.
    expect(sentence([2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6])).toBe(
      "layered beat none on 6 of 6 windows; difference +1.0% on every pair (no spread, so the " +
        "interval is that one value), p=0.031: significant at 5%",
    );
  });

  it("speaks of each metric in its own words and units", () => {
    expect(sentence([1200, 1500, 900], [1000, 1000, 1000], 1, "tokens")).toMatch(
      /^layered used more tokens than none on 2 of 3 windows; difference \+200 tokens \(CI /,
    );
    // d = (0.01, 0.02, −0.01), mean 0.00667; of the 27 resamples' sums (in cents) the lowest
    // are −3 (rank 0) and −1 (ranks 1–3), the highest 6 (rank 26) and 5 (ranks 23–25): the
    // bounds are (−3 + 0.65·2)/3 = −0.567 and (5 + 0.35)/3 = 1.783 cents. The largest, 0.018,
    // sets three decimals for all three numbers.
    expect(sentence([0.02, 0.03, 0.01], [0.01, 0.01, 0.02], 1, "costUsd")).toMatch(
      /^layered cost more than none on 2 of 3 windows; difference \+\$0\.007 \(CI -0\.006\.\.0\.018\)/,
    );
    // d = (1, −2, 3), mean 0.67; its upper bound (above 1) sets one decimal.
    expect(sentence([-5, -8, -3], [-6, -6, -6], 1, "maxDrawdownPct")).toMatch(
      /^layered had a shallower max drawdown than none on 2 of 3 windows; difference \+0\.7% /,
    );
  });

  it("formats amounts and p-values to two significant digits", () => {
    expect(decimalsFor([1.2, -0.4, 2.9])).toBe(1);
    expect(decimalsFor([0.012, 0.03])).toBe(3);
    expect(decimalsFor([12_345])).toBe(0);
    expect(decimalsFor([0])).toBe(1);
    const pct = { prefix: "", suffix: "%" };
    expect(formatAmount(1.23, 1, pct, true)).toBe("+1.2%");
    expect(formatAmount(-0.04, 1, pct, true)).toBe("0.0%");
    expect(formatAmount(-0.013, 3, { prefix: "$", suffix: "" }, true)).toBe("-$0.013");
    expect(formatP(0.19)).toBe("p=0.19");
    expect(formatP(0.031_25)).toBe("p=0.031");
    expect(formatP(1)).toBe("p=1");
    expect(formatP(0.000_099_99)).toBe("p<0.001");
  });

  it("is a function of the figures alone", () => {
    const [c] = compareCells(
      [{ cell: "a", baseline: "b", cellRuns: runs([2, 3]), baselineRuns: runs([1, 1]) }],
      "returnPct",
    );
    const { sentence: made, ...figures } = c!;
    expect(comparisonSentence(figures)).toBe(made);
    expect(comparisonSentence({ ...figures, cell: "persistent" })).toBe(
      made.replace(/^a /, "persistent "),
    );
  });
});
