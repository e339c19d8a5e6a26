import { describe, expect, it } from "vitest";
import { DEFAULT_BROKER_CONFIG } from "../../src/config/run-settings.js";
import { applyCombination, resolveAxis } from "../../src/sweep/axes.js";
import { checkObjective, planSearch } from "../../src/sweep/plan.js";

const defaults = { fast: 10, slow: 30, longShort: false, mode: "a" };
const search = (grid: { name: string; values: (string | number | boolean)[] }[], more = {}) => ({
  grid,
  constraint: null,
  objective: { metric: "sharpe" as const, direction: "maximize" as const },
  method: "grid" as const,
  maxTries: null,
  seed: 1,
  ...more,
});

describe("sweep axes and combinations", () => {
  it("makes the GOOG grid's 175 combinations, the first axis varying slowest", () => {
    const { combos } = planSearch(
      {
        ...search([
          { name: "fast", values: ["5:50:5"] },
          { name: "slow", values: ["10:200:10"] },
        ]),
        grid: [
          { name: "fast", values: resolveAxis("fast", "5:50:5", defaults).values },
          { name: "slow", values: resolveAxis("slow", "10:200:10", defaults).values },
        ],
        constraint: "fast < slow",
      },
      defaults,
    );
    // fast 5..50 (10 values) x slow 10..200 (20 values), fast < slow: 200 - 25 pairs refused.
    expect(combos).toHaveLength(175);
    expect(combos[0]).toEqual({ fast: 5, slow: 10 });
    expect(combos[1]).toEqual({ fast: 5, slow: 20 });
    expect(combos.at(-1)).toEqual({ fast: 50, slow: 200 });
    expect(combos.every((c) => (c.fast as number) < (c.slow as number))).toBe(true);
  });

  it("types parameter values by the strategy's defaults and settings by the schema", () => {
    expect(resolveAxis("fast", "5:15:5", defaults).values).toEqual([5, 10, 15]);
    expect(resolveAxis("longShort", "true,false", defaults).values).toEqual([true, false]);
    const c = resolveAxis("commission", "0,0.001,0.002", defaults);
    expect(c.target).toEqual({ kind: "broker", key: "commissionRate" });
    expect(c.values).toEqual([0, 0.001, 0.002]);
    expect(resolveAxis("allow-short", "true,false", defaults).target).toEqual({
      kind: "broker",
      key: "allowShort",
    });
    expect(resolveAxis("maxPositionWeight", [0.5, 1], defaults).target).toEqual({
      kind: "risk",
      key: "maxPositionWeight",
    });
  });

  it("refuses bad values and names, saying why", () => {
    expect(() => resolveAxis("commission", "0,0.9", defaults)).toThrow(
      /--grid commission "0.9" is not valid: it must be a number >= 0 and <= 0.5/,
    );
    expect(() => resolveAxis("fast", "5,x", defaults)).toThrow(/Parameter fast must be a decimal/);
    expect(() => resolveAxis("fats", "1,2", defaults)).toThrow(/did you mean fast\?/);
    expect(() => resolveAxis("from", "2020-01-01", defaults)).toThrow(/changes the data loaded/);
    expect(() => resolveAxis("model", "a,b", defaults)).toThrow(/code strategies only/);
    expect(() => resolveAxis("fast", "5,5", defaults)).toThrow(/lists 5 twice/);
    expect(() =>
      planSearch(
        search([
          { name: "commission", values: [0] },
          { name: "commissionRate", values: [0.001] },
        ]),
        defaults,
      ),
    ).toThrow(/set the same thing/);
  });

  it("applies a combination over the base settings without touching them", () => {
    const axes = [resolveAxis("fast", [5], defaults), resolveAxis("commission", [0.002], defaults)];
    const base = { params: { longShort: "true" }, broker: DEFAULT_BROKER_CONFIG };
    const out = applyCombination(axes, { fast: 5, commission: 0.002 }, base);
    expect(out.params).toEqual({ longShort: "true", fast: 5 });
    expect(out.broker.commissionRate).toBe(0.002);
    expect(DEFAULT_BROKER_CONFIG.commissionRate).toBe(0);
  });

  it("draws the same random sample for the same seed, without repeats", () => {
    const grid = [
      { name: "fast", values: [5, 10, 15, 20] as number[] },
      { name: "slow", values: [30, 40, 50] as number[] },
    ];
    const a = planSearch(search(grid, { method: "random", maxTries: 5, seed: 7 }), defaults).combos;
    const b = planSearch(search(grid, { method: "random", maxTries: 5, seed: 7 }), defaults).combos;
    const c = planSearch(search(grid, { method: "random", maxTries: 5, seed: 8 }), defaults).combos;
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(new Set(a.map((x) => JSON.stringify(x))).size).toBe(5);
    expect(() => planSearch(search(grid, { method: "random" }), defaults)).toThrow(/--max-tries/);
  });

  it("checks the objective's metric", () => {
    expect(checkObjective(null, null)).toEqual({ metric: "sharpe", direction: "maximize" });
    expect(checkObjective("sharpe", "maxDrawdownPct")).toEqual({
      metric: "maxDrawdownPct",
      direction: "minimize",
    });
    expect(() => checkObjective("sharp", null)).toThrow(
      /--maximize "sharp" is not a metric \(did you mean sharpe\?\)/,
    );
  });
});
