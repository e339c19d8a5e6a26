import { describe, expect, it } from "vitest";
import { budgetLimitOf, budgetRefusal } from "../../../src/sweep/experiment/experiment-budget.js";
import type { ExperimentConfig } from "../../../src/sweep/experiment/experiment-dir.js";

describe("--budget-usd's rule", () => {
  // Cell 0 estimated at $0.1 a run, cell 1 (a memory system) at $0.4.
  const cellEstimates = [0.1, 0.4];

  it("lets any run start without a budget", () => {
    expect(budgetRefusal({ usd: null }, [{ cell: 0, network: 1, costUsd: null }], [0], 0)).toBe(
      null,
    );
  });

  it("holds the first runs to their cell's launch estimate, the runs in flight counted", () => {
    const limit = { usd: 0.65, cellEstimates };
    // 0.1 + 0.4 in flight, and a cell-0 run: 0.6 fits; a cell-1 run: 0.9 does not.
    expect(budgetRefusal(limit, [], [0, 1], 0)).toBeNull();
    expect(budgetRefusal(limit, [], [0, 1], 1)).toBe(
      "$0.0000 spent plus ~$0.9000 for 2 run(s) in flight and the next would pass --budget-usd 0.65",
    );
  });

  it("counts a cell's runs at the mean bill of its finished priced runs once it has one", () => {
    const finished = [
      { cell: 1, network: 3, costUsd: 0.2 },
      // No network call (cache, replay): no sample of a run's bill.
      { cell: 1, network: 0, costUsd: null },
      { cell: 1, network: 2, costUsd: 0.4 },
    ];
    // 0.6 spent; cell 1 at its mean 0.3, cell 0 at its estimate 0.1: 0.6 + 0.3 + 0.1 = 1.0.
    expect(budgetRefusal({ usd: 1, cellEstimates }, finished, [1], 0)).toBeNull();
    expect(budgetRefusal({ usd: 1, cellEstimates }, finished, [1], 1)).toBe(
      "$0.6000 spent plus ~$0.6000 for 1 run(s) in flight and the next would pass --budget-usd 1",
    );
  });

  it("with no estimate (a replay), a cell with no bill yet counts at the mean of every bill", () => {
    const finished = [{ cell: 0, network: 1, costUsd: 0.5 }];
    expect(budgetRefusal({ usd: 1.4 }, finished, [], 1)).toBeNull();
    expect(budgetRefusal({ usd: 1.4 }, finished, [1], 1)).toContain("~$1.0000 for 1 run(s)");
  });

  it("refuses when a price is unknown, billed or estimated", () => {
    expect(
      budgetRefusal({ usd: 5, cellEstimates }, [{ cell: 0, network: 1, costUsd: null }], [], 0),
    ).toContain("a run's price is unknown");
    expect(budgetRefusal({ usd: 5, cellEstimates: [0.1, null] }, [], [], 1)).toContain(
      "the model's price is unknown",
    );
    // The unpriced cell in flight is enough: its spend cannot be known.
    expect(budgetRefusal({ usd: 5, cellEstimates: [0.1, null] }, [], [1], 0)).toContain(
      "the model's price is unknown",
    );
  });
});

describe("an experiment's budget limit", () => {
  const usd = (point: number) => ({ low: point, point, high: point });
  const config = (estimate: ExperimentConfig["estimate"]) =>
    ({
      budgetUsd: 2,
      cells: [
        { settings: { memory: "none" }, run: {} },
        { settings: { strategy: "code.ts" }, run: {}, code: true },
        { settings: { memory: "files" }, run: {} },
      ],
      ...(estimate ? { estimate } : {}),
    }) as unknown as ExperimentConfig;

  it("takes each LLM cell's estimate per run by its label; a code cell costs nothing", () => {
    const estimate = {
      cells: [
        { label: "memory=files", runs: 4, usd: usd(2) },
        { label: "memory=none", runs: 4, usd: usd(0.4) },
      ],
    } as unknown as ExperimentConfig["estimate"];
    expect(budgetLimitOf(config(estimate))).toEqual({ usd: 2, cellEstimates: [0.1, 0, 0.5] });
  });

  it("has no estimates when none was made, and null for an unknown price", () => {
    expect(budgetLimitOf(config(undefined))).toEqual({ usd: 2 });
    const estimate = {
      cells: [
        { label: "memory=none", runs: 4, usd: null },
        { label: "memory=files", runs: 4, usd: usd(2) },
      ],
    } as unknown as ExperimentConfig["estimate"];
    expect(budgetLimitOf(config(estimate)).cellEstimates).toEqual([null, 0, 0.5]);
  });
});
