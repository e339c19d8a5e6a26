import { describe, expect, it } from "vitest";
import { resolveLayeredParams } from "../../../src/memory/layered/layered-config.js";
import {
  DEFAULT_LAYERED_PARAMS,
  type Layer,
  type LayeredItem,
  maintain,
  recency,
  reflectionDue,
  retrieve,
  score,
} from "../../../src/memory/layered/layered-math.js";
import { LayeredState } from "../../../src/memory/layered/layered-state.js";

const P = DEFAULT_LAYERED_PARAMS;
const DAY = 86_400_000;

function item(id: number, layer: Layer, importance: number, day = 0): LayeredItem {
  return {
    id,
    layer,
    content: `m${id}`,
    importance,
    ageDays: 0,
    day,
    created: day * DAY,
    line: id,
  };
}

describe("layered memory arithmetic (INVESTOR-BENCH, simulated days)", () => {
  it("decays a short memory day by day and cleans it up once recency < 0.05 (day 9)", () => {
    const items = [item(1, "short", 50)];
    // Day 1: importance 50 × 0.92 = 46; recency exp(-1/3) = 0.716531; score 46 × 0.716531 = 32.9604.
    expect(maintain(items, 1, P)).toEqual([]);
    expect(items[0]?.importance).toBeCloseTo(46, 10);
    expect(recency(items[0] as LayeredItem, P)).toBeCloseTo(0.716531, 6);
    expect(score(items[0] as LayeredItem, P)).toBeCloseTo(32.9604, 4);
    // Day 3 (two days later): 46 × 0.92² = 46 × 0.8464 = 38.9344; recency exp(-3/3) = 0.367879.
    maintain(items, 3, P);
    expect(items[0]?.importance).toBeCloseTo(38.9344, 10);
    expect(recency(items[0] as LayeredItem, P)).toBeCloseTo(0.367879, 6);
    // Day 8: recency exp(-8/3) = 0.0695 >= 0.05: kept. Importance 38.9344 × 0.92^5 = 25.6609.
    maintain(items, 8, P);
    expect(items).toHaveLength(1);
    expect(items[0]?.importance).toBeCloseTo(25.6609, 4);
    // Day 9: recency exp(-9/3) = e^-3 = 0.049787 < 0.05: removed by the recency clean-up.
    expect(maintain(items, 9, P)).toEqual([{ id: 1, from: "short", to: null, why: "recency" }]);
    expect(items).toHaveLength(0);
  });

  it("promotes short → mid above 55, then demotes mid → short below 55 while recency > 0.1", () => {
    const items = [item(1, "short", 70)];
    // Day 1: 70 × 0.92 = 64.4 > 55 → mid, age restarts at 0 (recency 1).
    expect(maintain(items, 1, P)).toEqual([{ id: 1, from: "short", to: "mid", why: "promote" }]);
    expect(items[0]).toMatchObject({ layer: "mid", ageDays: 0 });
    expect(items[0]?.importance).toBeCloseTo(64.4, 10);
    // Day 2: mid decays by 0.96: 64.4 × 0.96 = 61.824, stays mid (55 ≤ 61.824 ≤ 85).
    expect(maintain(items, 2, P)).toEqual([]);
    expect(items[0]?.importance).toBeCloseTo(61.824, 10);
    // Day 5: 61.824 × 0.96³ = 61.824 × 0.884736 = 54.697918 < 55; age in mid 4 days, recency
    // exp(-4/90) = 0.9565 > 0.1 → back to short, age 0.
    expect(maintain(items, 5, P)).toEqual([{ id: 1, from: "mid", to: "short", why: "demote" }]);
    expect(items[0]?.importance).toBeCloseTo(54.697918, 5);
    // Day 6: short decay 0.92: 54.697918 × 0.92 = 50.322085.
    maintain(items, 6, P);
    expect(items[0]).toMatchObject({ layer: "short", ageDays: 1 });
    expect(items[0]?.importance).toBeCloseTo(50.322085, 5);
  });

  it("promotes mid → long above 85 and demotes long → mid below 85", () => {
    const items = [item(1, "mid", 95), item(2, "long", 90)];
    // Day 1: mid 95 × 0.96 = 91.2 > 85 → long; long 90 × 0.96 = 86.4 ≥ 85 stays.
    expect(maintain(items, 1, P)).toEqual([{ id: 1, from: "mid", to: "long", why: "promote" }]);
    expect(items.map((i) => i.importance)).toEqual([
      expect.closeTo(91.2, 10),
      expect.closeTo(86.4, 10),
    ]);
    // Day 2: 91.2 × 0.96 = 87.552 stays long; 86.4 × 0.96 = 82.944 < 85 → mid.
    expect(maintain(items, 2, P)).toEqual([{ id: 2, from: "long", to: "mid", why: "demote" }]);
    // Day 3: 87.552 × 0.96 = 84.04992 < 85 → mid.
    expect(maintain(items, 3, P)).toEqual([{ id: 1, from: "long", to: "mid", why: "demote" }]);
    expect(items[0]?.importance).toBeCloseTo(84.04992, 8);
  });

  it("removes a demoted mid memory whose recency is ≤ 0.1, and one whose importance < the clean-up", () => {
    const p = resolveLayeredParams({
      layers: { mid: { importanceDecay: 0.99, recencyPeriodDays: 0.5 } },
    });
    const items = [item(1, "mid", 56), item(2, "short", 5.2)];
    // Two days at once (day 0 → 2): mid 56 × 0.99² = 56 × 0.9801 = 54.8856 < 55, recency
    // exp(-2/0.5) = e^-4 = 0.0183 ≤ 0.1 → removed. Short 5.2 × 0.92² = 4.401 < 5 → removed by the
    // importance clean-up (recency exp(-2/3) = 0.513 is fine).
    expect(maintain(items, 2, p)).toEqual([
      { id: 1, from: "mid", to: null, why: "demote" },
      { id: 2, from: "short", to: null, why: "importance" },
    ]);
    expect(items).toEqual([]);
  });

  it("retrieves the top k of each layer (3/2/2/1) by importance × recency, best first", () => {
    const items = [
      item(1, "short", 10),
      item(2, "short", 40),
      item(3, "short", 30),
      item(4, "short", 20),
      item(5, "mid", 60),
      item(6, "mid", 70),
      item(7, "mid", 65),
      item(8, "reflection", 80),
      item(9, "reflection", 81),
    ];
    // Age 0 everywhere (recency 1): short 40, 30, 20 (not 10); mid 70, 65 (not 60); long none;
    // reflection 81 (not 80). Score = importance/100 with relevance 1 and weight 1.
    const picked = retrieve(items, P, null);
    expect(picked.map((r) => r.item.id)).toEqual([9, 6, 7, 2, 3, 4]);
    expect(picked.map((r) => r.score)).toEqual([0.81, 0.7, 0.65, 0.4, 0.3, 0.2]);
  });

  it("a reflection is due after more than 30 days, or after a loss over 5% in 5 day ends", () => {
    expect(reflectionDue(30, 0, [], P)).toBeNull();
    expect(reflectionDue(31, 0, [], P)).toBe("days");
    // 94.9 / 100 - 1 = -5.1% over the last 5 day ends (100 is 5 back).
    expect(reflectionDue(10, 5, [100, 99, 98, 97, 96, 94.9], P)).toBe("loss");
    // Exactly -5% is not over 5%.
    expect(reflectionDue(10, 5, [100, 99, 98, 97, 96, 95], P)).toBeNull();
  });

  it("a run's day ends trigger a reflection after 30 days, then after a 5% loss, each once", () => {
    const s = new LayeredState(P);
    expect(s.dayEnd(0, 0, 100).reflection).toBeNull();
    // Day 30: 30 days since the first event (day 0) is not more than 30.
    expect(s.dayEnd(30 * DAY, 1, 100).reflection).toBeNull();
    // Day 31: 31 > 30. The trigger restarts both clocks (days and the loss window).
    expect(s.dayEnd(31 * DAY, 2, 100)).toMatchObject({ reflection: "days" });
    expect(s.due).toBe("days");
    s.due = null;
    const equities = [99, 98, 97, 96];
    equities.forEach((e, k) => {
      expect(s.dayEnd((32 + k) * DAY, 3 + k, e).reflection).toBeNull();
    });
    // Five day ends after the 100 of day 31: (100 - 94.9) / 100 = 5.1% > 5%.
    expect(s.dayEnd(36 * DAY, 7, 94.9).reflection).toBe("loss");
    expect(s.counts.reflectionTriggers).toBe(2);
  });

  it("de-duplicates a reflection at token cosine ≥ 0.95 and keeps a different one", () => {
    const s = new LayeredState(P);
    s.reflect(0, 0, 80, "Cut losers early; let winners run.");
    const dup = s.reflect(DAY, 1, 80, "cut losers early, let winners run");
    expect(dup).toMatchObject({ op: "duplicate", of: 1, similarity: 1 });
    const other = s.reflect(DAY, 1, 80, "Never average down into earnings.");
    expect(other).toMatchObject({ op: "store", layer: "reflection", id: 2 });
    expect(s.counts).toMatchObject({ reflections: 2, reflectionDuplicates: 1 });
  });

  it("rejects parameters out of range, naming the key", () => {
    expect(() => resolveLayeredParams({ layers: { short: { importanceDecay: 1.5 } } })).toThrow(
      /layers\.short\.importanceDecay/,
    );
    expect(() => resolveLayeredParams({ jumpLower: 90 })).toThrow(/jumpLower \(90\) must be below/);
    expect(() => resolveLayeredParams({ jumpLowr: 50 })).toThrow(/jumpLowr|Unrecognized/);
    expect(resolveLayeredParams(undefined)).toEqual(P);
  });
});
