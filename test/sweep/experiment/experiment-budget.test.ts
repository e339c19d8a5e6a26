import { describe, expect, it } from "vitest";
import { budgetRefusal, spendOf } from "../../../src/sweep/experiment/experiment-budget.js";

describe("--budget-usd's rule", () => {
  const estimate = { runs: 10, usd: { point: 1 } };

  it("lets any run start without a budget", () => {
    expect(budgetRefusal({ usd: null }, { spentUsd: null, priced: 0, running: 99 })).toBeNull();
  });

  it("holds the first runs to the launch estimate per run, the runs in flight counted", () => {
    const limit = { usd: 0.25, estimate };
    // 0.1 a run: two in flight and this one pass 0.25, one in flight and this one do not.
    expect(budgetRefusal(limit, { spentUsd: 0, priced: 0, running: 1 })).toBeNull();
    expect(budgetRefusal(limit, { spentUsd: 0, priced: 0, running: 2 })).toBe(
      "$0.0000 spent plus 3 run(s) at ~$0.1000 each would pass --budget-usd 0.25",
    );
  });

  it("uses the mean bill of the priced runs once one is billed", () => {
    const spend = spendOf(
      [
        { network: 3, costUsd: 0.2 },
        { network: 0, costUsd: null },
        { network: 2, costUsd: 0.4 },
      ],
      0,
    );
    expect(spend.priced).toBe(2);
    expect(spend.spentUsd).toBeCloseTo(0.6, 12);
    // 0.6 + 0.3 = 0.9 fits 1; one more in flight makes 1.2.
    expect(budgetRefusal({ usd: 1, estimate }, spend)).toBeNull();
    expect(budgetRefusal({ usd: 1, estimate }, { ...spend, running: 1 })).toContain(
      "2 run(s) at ~$0.3000 each",
    );
  });

  it("refuses when a price is unknown, billed or estimated", () => {
    const unpriced = spendOf([{ network: 1, costUsd: null }], 0);
    expect(unpriced.spentUsd).toBeNull();
    expect(budgetRefusal({ usd: 5, estimate }, unpriced)).toContain("a run's price is unknown");
    expect(
      budgetRefusal(
        { usd: 5, estimate: { runs: 4, usd: null } },
        { spentUsd: 0, priced: 0, running: 0 },
      ),
    ).toContain("the model's price is unknown");
  });
});
