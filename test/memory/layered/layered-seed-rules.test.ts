import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { alignSeries } from "../../../src/engine/align-series.js";
import type { Fill } from "../../../src/engine/types.js";
import { resolveLayeredParams } from "../../../src/memory/layered/layered-config.js";
import {
  DEFAULT_LAYERED_PARAMS,
  type Layer,
  type LayeredItem,
  NO_SIGNALS,
  reflectionDue,
  retrieveSimilar,
} from "../../../src/memory/layered/layered-math.js";
import {
  barSignals,
  marketImpact,
  nextRegime,
  regimeReturn,
  relevance,
  scoreImportance,
  sentiment,
  urgency,
} from "../../../src/memory/layered/layered-signals.js";
import { LayeredState } from "../../../src/memory/layered/layered-state.js";
import { LayeredMemory, readLayeredLog } from "../../../src/memory/layered/layered-system.js";
import type { MemoryToolSpec } from "../../../src/memory/memory-system.js";
import { type Row, series } from "../../engine/helpers.js";
import { tempDir } from "../../helpers/cli.js";

const P = DEFAULT_LAYERED_PARAMS;
const DAY = 86_400_000;
const T0 = Date.UTC(2024, 0, 1);
const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** Daily rows from 2024-01-01: [close, volume] (open = high = low = close). */
function rows(bars: readonly (readonly [number, number])[]): Row[] {
  return bars.map(([c, v], k) => [T0 + k * DAY, c, c, c, c, v] as const);
}

async function use(system: LayeredMemory, name: string, args: unknown, index: number) {
  const t = system.tools.find((x) => x.name === name) as MemoryToolSpec;
  const site = { time: T0 + index * DAY, index, label: `bar ${index}` };
  return (await t.run(t.parameters.parse(args), site)).result;
}

function fill(symbol: string, side: "buy" | "sell", qty: number, index: number): Fill {
  return {
    orderId: index,
    symbol,
    side,
    qty,
    price: 100,
    rawPrice: 100,
    commission: 0,
    slippage: 0,
    index,
    time: T0 + index * DAY,
    basis: "open",
  };
}

function item(id: number, layer: Layer, importance: number): LayeredItem {
  return { id, layer, content: `m${id}`, importance, ageDays: 0, day: 0, created: 0, line: id };
}

describe("five-factor importance (30 / 25 / 20 / 15 / 10 points)", () => {
  it("sums each factor times its points and caps the total at 100", () => {
    // 30×0.5 + 25×1 + 20×0.5 + 15×0.6 + 10×0.25 = 15 + 25 + 10 + 9 + 2.5 = 61.5.
    const x = { marketImpact: 0.5, novelty: 1, relevance: 0.5, source: 0.6, urgency: 0.25 };
    expect(scoreImportance(x, P)).toBeCloseTo(61.5, 9);
    // Weights 40/25/20/15/10 with every factor 1 sum to 110: capped at 100.
    const heavy = resolveLayeredParams({ importanceWeights: { marketImpact: 40 } });
    const all = { marketImpact: 1, novelty: 1, relevance: 1, source: 1, urgency: 1 };
    expect(scoreImportance(all, heavy)).toBe(100);
    expect(heavy.importanceWeights).toEqual({
      marketImpact: 40,
      novelty: 25,
      relevance: 20,
      source: 15,
      urgency: 10,
    });
  });

  it("reads the bar's move and volume (up to the bar, never after)", async () => {
    const data = alignSeries([
      series(
        "AAA",
        rows([
          [100, 1e6],
          [100, 2e6],
          [100, 1e6],
          [103, 1.5e6],
          [200, 9e6],
        ]),
      ),
      series(
        "BBB",
        rows([
          [50, 1e6],
          [50, 1e6],
          [50, 1e6],
          [49, 1e6],
          [10, 1e6],
        ]),
      ),
    ]);
    // Bar 3: AAA 103/100 - 1 = 0.03, BBB 49/50 - 1 = -0.02: the largest |move| 0.03. Volume: AAA
    // 1.5e6 over the mean of bars 0-2 (4e6 / 3) = 1.125; BBB 1; with a 1-bar window AAA 1.5 / 1.
    expect(barSignals(data, 3, 20).move).toBeCloseTo(0.03, 12);
    expect(barSignals(data, 3, 20).volumeRatio).toBeCloseTo(1.125, 12);
    expect(barSignals(data, 3, 1).volumeRatio).toBeCloseTo(1.5, 12);
    // Market impact 0.03 / 0.05 = 0.6; a 10% move is capped at 1. Urgency (1.5 - 1) / (2 - 1).
    expect(marketImpact(0.03, P)).toBeCloseTo(0.6, 12);
    expect(marketImpact(0.1, P)).toBe(1);
    expect(urgency(1.5, P)).toBeCloseTo(0.5, 12);
    expect(urgency(0.8, P)).toBe(0);
    // Only the symbols a memory names: BBB's 2% and its usual volume.
    expect(barSignals(data, 3, 20, new Set(["BBB"])).move).toBeCloseTo(0.02, 12);
    expect(barSignals(data, 3, 20, new Set(["BBB"])).volumeRatio).toBe(1);
    // Stored: impact 0.02 / 0.05 = 0.4 (12), novelty 1 (25), relevance 0.5 (BBB is not held: 10),
    // source 0.6 (9), urgency 0: 56 → mid.
    const namedDir = fs.mkdtempSync(`${work}/named-`);
    const system = new LayeredMemory(namedDir, P, null, null, data);
    expect(await use(system, "memory_store", { content: "BBB slipped" }, 3)).toMatchObject({
      layer: "mid",
      importance: 56,
    });
    system.finish();
    expect(readLayeredLog(namedDir)[0]).toMatchObject({
      factors: { marketImpact: 0.4, novelty: 1, relevance: 0.5, source: 0.6, urgency: 0 },
    });
    expect(relevance("Bought AAA at 103", ["AAA"], ["AAA", "BBB"])).toBe(1);
    expect(relevance("bbb looks weak", ["AAA"], ["AAA", "BBB"])).toBe(0.5);
    expect(relevance("nothing here", ["AAA"], ["AAA", "BBB"])).toBe(0);
  });

  it("scores a store without importance and layer, logs the factors, and keeps given numbers", async () => {
    const data = alignSeries([
      series(
        "AAA",
        rows([
          [100, 1e6],
          [100, 2e6],
          [100, 1e6],
          [103, 1.5e6],
        ]),
      ),
    ]);
    const dir = fs.mkdtempSync(`${work}/scored-`);
    const system = new LayeredMemory(dir, P, null, null, data);
    system.onMoment({
      kind: "fill",
      time: T0 + 3 * DAY,
      index: 3,
      fill: fill("AAA", "buy", 10, 3),
    });
    // Impact 0.6 (18), novelty 1 (nothing kept: 25), relevance 1 (names the held AAA: 20), source
    // 1 (a fill at this bar: 15), urgency (1.125 - 1) / 1 = 0.125 (1.25): 79.25 → mid (55-85).
    expect(await use(system, "memory_store", { content: "Bought AAA on the breakout" }, 3)).toEqual(
      { ok: true, id: 1, layer: "mid", importance: 79.25 },
    );
    // Novelty 1 - 5 / sqrt(5 × 6) = 1 - 0.912871 = 0.087129 (25 × 0.087129 = 2.178225):
    // 18 + 2.178225 + 20 + 15 + 1.25 = 56.428225.
    const second = (await use(
      system,
      "memory_store",
      { content: "Bought AAA on the breakout again" },
      3,
    )) as { importance: number };
    expect(second.importance).toBeCloseTo(56.428225, 9);
    // Given numbers are kept: an importance (the layer follows it), or a layer (its initial).
    expect(await use(system, "memory_store", { content: "x y", importance: 40 }, 3)).toMatchObject({
      layer: "short",
      importance: 40,
    });
    expect(await use(system, "memory_store", { content: "z w", layer: "long" }, 3)).toMatchObject({
      layer: "long",
      importance: 90,
    });
    system.finish();
    const log = readLayeredLog(dir);
    expect(log[0]).toMatchObject({
      op: "store",
      importance: 79.25,
      factors: { marketImpact: 0.6, novelty: 1, relevance: 1, source: 1, urgency: 0.125 },
    });
    expect(log[1]).toMatchObject({ factors: { novelty: 0.087129 } });
    expect(log[2]).not.toHaveProperty("factors");
    // importanceMode "agent": the layer's initial value, as before the scorer.
    const agent = new LayeredMemory(
      fs.mkdtempSync(`${work}/agent-`),
      resolveLayeredParams({ importanceMode: "agent" }),
      null,
      null,
      data,
    );
    expect(await use(agent, "memory_store", { content: "Bought AAA" }, 3)).toMatchObject({
      layer: "short",
      importance: 50,
    });
    // Under --anonymize the model writes the alias: relevance looks for the name it sees.
    const alias = new LayeredMemory(fs.mkdtempSync(`${work}/alias-`), P, null, null, data, (s) =>
      s === "AAA" ? "ASSET1" : s,
    );
    alias.onMoment({ kind: "fill", time: T0 + 3 * DAY, index: 3, fill: fill("AAA", "buy", 1, 3) });
    // The same factors as the first store above (18 + 25 + 20 + 15 + 1.25).
    expect(await use(alias, "memory_store", { content: "Bought ASSET1 today" }, 3)).toMatchObject({
      importance: 79.25,
    });
    alias.finish();
    // The rules and the fill prompt ask for a number only when nothing scores it.
    expect(system.rules).toContain("the memory scores its importance");
    expect(system.momentPrompt("fill")).not.toMatch(/importance/);
    expect(agent.rules).toContain("an importance from 0 to 100");
    expect(agent.momentPrompt("fill")).toMatch(/importance 60 or more/);
    agent.finish();
  });
});

describe("reflection triggers: strategy change, regime change, consistency below 0.3", () => {
  it("takes the first trigger that holds: days, loss, strategy, regime, consistency", () => {
    const all = { strategyChange: true, regimeChange: true, inconsistent: true };
    expect(reflectionDue(31, 0, [], P, all)).toBe("days");
    expect(reflectionDue(10, 5, [100, 99, 98, 97, 96, 94.9], P, all)).toBe("loss");
    expect(reflectionDue(10, 5, [], P, all)).toBe("strategy");
    expect(reflectionDue(10, 5, [], P, { ...all, strategyChange: false })).toBe("regime");
    expect(reflectionDue(10, 5, [], P, { ...NO_SIGNALS, inconsistent: true })).toBe("consistency");
    expect(reflectionDue(10, 5, [], P, NO_SIGNALS)).toBeNull();
    const off = resolveLayeredParams({ strategyChangeTrigger: false });
    expect(reflectionDue(10, 5, [], off, { ...NO_SIGNALS, strategyChange: true })).toBeNull();
  });

  it("a trade opening the other direction is a strategy change at the next day end", () => {
    const dir = fs.mkdtempSync(`${work}/strategy-`);
    const system = new LayeredMemory(dir, P);
    const dayEnd = (index: number) =>
      system.onMoment({ kind: "day_end", time: T0 + index * DAY, index, day: "", equity: 100 });
    const at = (f: Fill) =>
      system.onMoment({ kind: "fill", time: f.time, index: f.index, fill: f });
    at(fill("AAA", "buy", 10, 0)); // opens long: the first direction, no change
    dayEnd(0);
    at(fill("AAA", "sell", 10, 1)); // back to flat: opens nothing
    at(fill("BBB", "buy", 5, 1)); // long again: no change
    dayEnd(1);
    at(fill("BBB", "sell", 8, 2)); // 5 - 8 = -3: through zero into a short
    dayEnd(2);
    at(fill("BBB", "buy", 3, 3)); // flat
    at(fill("BBB", "sell", 1, 3)); // short again: same direction
    dayEnd(3);
    system.finish();
    const ends = readLayeredLog(dir).filter((o) => o.op === "day_end");
    expect(ends.map((o) => (o.op === "day_end" ? o.reflection : "?"))).toEqual([
      null,
      null,
      "strategy",
      null,
    ]);
    expect(ends[2]).toMatchObject({ strategyChange: true });
    expect(system.stats()).toMatchObject({ triggerStrategy: 1, reflectionTriggers: 1 });
  });

  it("the regime follows the mean window return (up > +5%, down < -5%, between: unchanged)", () => {
    const data = alignSeries([
      series(
        "AAA",
        rows([
          [100, 1],
          [104, 1],
          [110, 1],
          [99, 1],
          [95, 1],
        ]),
      ),
    ]);
    const p = resolveLayeredParams({ regimeWindow: 2 });
    // Index 2: 110 / 100 - 1 = 0.1 → up; index 3: 99 / 104 - 1 = -0.048077 → stays up; index 4:
    // 95 / 110 - 1 = -0.136364 → down. Index 1 has no bar 2 back: no return.
    expect(regimeReturn(data, 1, 2)).toBeNull();
    expect(regimeReturn(data, 2, 2)).toBeCloseTo(0.1, 12);
    expect(regimeReturn(data, 3, 2)).toBeCloseTo(99 / 104 - 1, 12);
    expect(nextRegime(null, 0.1, p)).toBe("up");
    expect(nextRegime("up", -0.048077, p)).toBe("up");
    expect(nextRegime("up", -0.136364, p)).toBe("down");
    const dir = fs.mkdtempSync(`${work}/regime-`);
    const system = new LayeredMemory(dir, p, null, null, data);
    for (let i = 0; i < 5; i++) {
      system.onMoment({ kind: "day_end", time: T0 + i * DAY, index: i, day: "", equity: 100 });
    }
    system.finish();
    const ends = readLayeredLog(dir).filter((o) => o.op === "day_end");
    expect(ends.map((o) => (o.op === "day_end" ? [o.regime ?? null, o.reflection] : []))).toEqual([
      [null, null],
      [null, null],
      ["up", null],
      ["up", null],
      ["down", "regime"],
    ]);
    // A rebuild from the log reaches the same trigger count.
    const rebuilt = new LayeredState(p);
    for (const op of readLayeredLog(dir)) rebuilt.apply(op);
    expect(rebuilt.counts.triggerRegime).toBe(1);
  });

  it("a memory contradicting related memories shown (consistency < 0.3) triggers a reflection", () => {
    const s = new LayeredState(P);
    s.store(T0, 0, "short", 50, "AAA breakout rally");
    s.store(T0, 0, "short", 50, "AAA looks flat today");
    expect(sentiment("AAA will drop")).toBe(-1);
    // Related and taking a side: only "AAA breakout rally" (+1; the flat one is neutral). Token
    // cosine of [aaa, will, drop] and [aaa, breakout, rally]: 1/3; alignment 0 (opposite sides):
    // 0.7 × 1/3 + 0.3 × 0 = 0.233333.
    const c = s.consistencyOf("AAA will drop");
    expect(c).toBeCloseTo(0.233333, 9);
    s.store(T0, 0, "short", 50, "AAA will drop", undefined, { consistency: c });
    expect(s.dayEnd(T0, 0, 100)).toMatchObject({ reflection: "consistency" });
    // With one agreeing memory ([aaa, will, fall, further]: cosine 2 / (2 × sqrt 3) = 0.577350,
    // 0.7 × 0.577350 + 0.3 = 0.704145) the mean is (0.233333 + 0.704145) / 2 = 0.468739.
    const t = new LayeredState(P);
    t.store(T0, 0, "short", 50, "AAA breakout rally");
    t.store(T0, 0, "short", 50, "AAA will fall further");
    expect(t.consistencyOf("AAA will drop")).toBeCloseTo(0.468739, 9);
    // Nothing related, or a neutral text: no consistency to check.
    expect(t.consistencyOf("BBB drop")).toBeNull();
    expect(t.consistencyOf("AAA noted")).toBeNull();
  });
});

describe("retrieval: similarity ≥ 0.7, layer weights, top 5 overall", () => {
  it("drops what is below the threshold, weights by layer, and keeps the best 5", () => {
    const sims: Record<number, number> = {
      1: 0.9,
      2: 0.8,
      3: 0.75,
      4: 0.69,
      5: 0.7,
      6: 0.72,
      7: 0.95,
      8: 0.85,
    };
    const items = [
      item(1, "short", 50),
      item(2, "short", 50),
      item(3, "short", 50),
      item(4, "short", 50),
      item(5, "mid", 60),
      item(6, "mid", 60),
      item(7, "long", 90),
      item(8, "reflection", 80),
    ];
    const p = resolveLayeredParams({ layers: { long: { weight: 0.5 } } });
    // Scores: #1 .9, #8 .85, #2 .8, #3 .75, #6 .72, #5 .7 (= the threshold: kept), #7 .95 × 0.5 =
    // .475; #4 .69 < .7 is out. The best 5.
    const picked = retrieveSimilar(items, p, (i) => sims[i.id] ?? 0);
    expect(picked.map((r) => r.item.id)).toEqual([1, 8, 2, 3, 6]);
    expect(picked.map((r) => r.score)).toEqual([0.9, 0.85, 0.8, 0.75, 0.72]);
    // Top 2: at most 2 per layer, then 2 overall.
    const two = retrieveSimilar(
      items,
      resolveLayeredParams({ recallTopK: 2 }),
      (i) => sims[i.id] ?? 0,
    );
    expect(two.map((r) => r.item.id)).toEqual([7, 1]);
    // A tie on similarity: the higher importance × recency first.
    const tied = retrieveSimilar([item(1, "short", 30), item(2, "short", 40)], P, () => 0.8);
    expect(tied.map((r) => r.item.id)).toEqual([2, 1]);
  });

  it("searches by token cosine with the threshold", () => {
    const s = new LayeredState(P);
    s.store(T0, 0, "short", 50, "gap fill");
    s.store(T0, 0, "short", 50, "gap fill failed");
    s.store(T0, 0, "short", 50, "gap up then fill failed today");
    // "gap fill" vs [gap, fill]: 1; vs [gap, fill, failed]: 2 / sqrt 6 = 0.816497; vs the six
    // words: 2 / sqrt 12 = 0.577350 < 0.7: not returned.
    const found = s.search("gap fill");
    expect(found.map((r) => r.item.id)).toEqual([1, 2]);
    expect(found[1]?.score).toBeCloseTo(2 / Math.sqrt(6), 12);
  });
});

describe("maintenance: de-duplication in every layer, compression of short memories", () => {
  it("merges near-identical memories of a layer at the day end, keeping the higher importance", () => {
    const s = new LayeredState(P);
    s.store(T0, 0, "short", 50, "Cut losers early");
    s.store(T0, 0, "short", 40, "cut losers early!");
    s.store(T0, 0, "short", 45, "Cut losers early always"); // 3 / (sqrt 3 × 2) = 0.866: kept
    s.store(T0, 0, "mid", 60, "weekly review: trend up");
    const first = s.dayEnd(T0, 0, 100);
    expect(first.moves).toEqual([{ id: 2, from: "short", to: null, why: "duplicate", into: 1 }]);
    // Day 1: the old mid memory decayed to 60 × 0.96 = 57.6 (recency exp(-1/90)); the new one, 62
    // at recency 1, scores higher: it stays and keeps max(62, 57.6) = 62.
    s.store(T0 + DAY, 1, "mid", 62, "Weekly review: trend up.");
    const second = s.dayEnd(T0 + DAY, 1, 100);
    expect(second.moves).toEqual([{ id: 4, from: "mid", to: null, why: "duplicate", into: 5 }]);
    expect(s.items.find((i) => i.id === 5)?.importance).toBe(62);
    expect(s.items.map((i) => i.id)).toEqual([1, 3, 5]);
    expect(s.counts.merged).toBe(2);
  });

  it("compresses more than 3 similar short memories into one mid memory", () => {
    const p = P;
    const s = new LayeredState(p);
    const words = ["one", "two", "three", "four"];
    // Each pair shares 6 of 7 tokens: cosine 6/7 = 0.857 (≥ 0.7 to group, < 0.95 to merge).
    words.forEach((w, k) => {
      s.store(T0 + k * DAY, k, "short", 50, `AAA gap up on earnings day ${w}`);
      const end = s.dayEnd(T0 + k * DAY, k, 100);
      if (k < 3)
        expect(end.compressed).toBeUndefined(); // groups of 1, 2, 3: not more than 3
      else {
        expect(end.compressed).toEqual([{ id: 5, of: [1, 2, 3, 4] }]);
        expect(end.moves.map((m) => [m.id, m.why, m.into])).toEqual([
          [1, "compress", 5],
          [2, "compress", 5],
          [3, "compress", 5],
          [4, "compress", 5],
        ]);
        expect(end.health).toEqual({
          avgImportance: 60,
          utilisation: { short: 0, mid: 1 / 800, long: 0, reflection: 0 },
        });
      }
    });
    expect(s.items).toEqual([
      {
        id: 5,
        layer: "mid",
        content:
          "AAA gap up on earnings day four\n(summary of 4 similar memories: #1, #2, #3, #4; stored 2024-01-01 to 2024-01-04)",
        importance: 60,
        ageDays: 0,
        day: 19_726,
        created: T0 + 3 * DAY,
        line: 8,
      },
    ]);
    expect(s.counts).toMatchObject({ compressions: 1, compressed: 4, removed: 0 });
    // A rebuild from the operations reaches the same state.
    const again = new LayeredState(p);
    const t = new LayeredState(p);
    words.forEach((w, k) => {
      again.apply(t.store(T0 + k * DAY, k, "short", 50, `AAA gap up on earnings day ${w}`));
      again.apply(t.dayEnd(T0 + k * DAY, k, 100));
    });
    expect(again.items).toEqual(s.items);
  });
});

describe("de-duplication before compression at one day end", () => {
  it("merges first, then compresses the kept memory with its group, counting each once", () => {
    const s = new LayeredState(P);
    ["one", "two", "three"].forEach((w, k) => {
      s.store(T0 + k * DAY, k, "short", 50, `AAA gap up on earnings day ${w}`);
      s.dayEnd(T0 + k * DAY, k, 100);
    });
    // Day 3: the same text twice (ids 4 and 5). Equal importance × recency: the newer (5) stays,
    // 4 is merged into it; then 5 with 1, 2, 3 (6/7 alike) is a group of 4 > 3: compressed.
    s.store(T0 + 3 * DAY, 3, "short", 50, "AAA gap up on earnings day four");
    s.store(T0 + 3 * DAY, 3, "short", 50, "AAA gap up on earnings day four");
    const end = s.dayEnd(T0 + 3 * DAY, 3, 100);
    expect(end.moves.map((m) => [m.id, m.why, m.into])).toEqual([
      [4, "duplicate", 5],
      [1, "compress", 6],
      [2, "compress", 6],
      [3, "compress", 6],
      [5, "compress", 6],
    ]);
    expect(end.compressed).toEqual([{ id: 6, of: [1, 2, 3, 5] }]);
    expect(s.items.map((i) => i.id)).toEqual([6]);
    expect(s.counts).toMatchObject({ merged: 1, compressions: 1, compressed: 4, removed: 0 });
  });
});

describe("health: average importance, utilisation, flow per day end, retrieval work", () => {
  it("reports them in the statistics", async () => {
    const dir = fs.mkdtempSync(`${work}/health-`);
    const system = new LayeredMemory(dir, P);
    await use(system, "memory_store", { content: "first", layer: "short", importance: 70 }, 0);
    await use(system, "memory_store", { content: "second", importance: 40 }, 0);
    system.onMoment({ kind: "day_end", time: T0, index: 0, day: "", equity: 100 });
    // Day 1: 70 × 0.96 = 67.2 (mid), 40 × 0.92 = 36.8 (short): mean 52.
    system.onMoment({ kind: "day_end", time: T0 + DAY, index: 1, day: "", equity: 100 });
    await use(system, "memory_recall", { query: "first" }, 1);
    system.finish();
    expect(system.stats()).toMatchObject({
      promotions: 1,
      dayEnds: 2,
      promotionsPerDayEnd: 0.5,
      demotionsPerDayEnd: 0,
      avgImportance: 52,
      utilisationShort: 1 / 500,
      utilisationMid: 1 / 800,
      recalls: 1,
      recallHits: 1,
      recallScanned: 2,
    });
    expect(system.stats().avgImportance).toBeCloseTo((67.2 + 36.8) / 2, 9);
  });
});

describe("the knobs of memory.layered", () => {
  it("checks the new keys' ranges and names, and turns rules off at 0", async () => {
    expect(() => resolveLayeredParams({ urgencyVolumeRatio: 1 })).toThrow(/urgencyVolumeRatio/);
    expect(() => resolveLayeredParams({ importanceWeights: { momentum: 5 } })).toThrow(
      /importanceWeights|momentum|Unrecognized/,
    );
    expect(() => resolveLayeredParams({ importanceMode: "llm" })).toThrow(/importanceMode/);
    expect(() => resolveLayeredParams({ compressMode: "llm" })).toThrow(/compressMode/);
    expect(resolveLayeredParams({ compressMode: "model" }).compressMode).toBe("model");
    // Absent: not recorded, so a run without it keeps its resolved settings as they were.
    expect(resolveLayeredParams({})).not.toHaveProperty("compressMode");
    expect(() => resolveLayeredParams({ recallThreshold: 1.2 })).toThrow(/recallThreshold/);
    expect(() => resolveLayeredParams({ layers: { mid: { capacity: 0 } } })).toThrow(
      /layers\.mid\.capacity/,
    );
    // compressMin 0: four alike short memories stay four.
    const s = new LayeredState(resolveLayeredParams({ compressMin: 0 }));
    for (const w of ["one", "two", "three", "four"]) {
      s.store(T0, 0, "short", 50, `AAA gap up on earnings day ${w}`);
    }
    expect(s.dayEnd(T0, 0, 100).compressed).toBeUndefined();
    expect(s.items).toHaveLength(4);
    // consistencyThreshold 0: the contradiction of the consistency test is not checked.
    const dir = fs.mkdtempSync(`${work}/noconsistency-`);
    const system = new LayeredMemory(dir, resolveLayeredParams({ consistencyThreshold: 0 }));
    await use(system, "memory_store", { content: "AAA breakout rally", layer: "short" }, 0);
    await use(system, "memory_store", { content: "AAA will drop", layer: "short" }, 0);
    system.onMoment({ kind: "day_end", time: T0, index: 0, day: "", equity: 100 });
    system.finish();
    const log = readLayeredLog(dir);
    expect(log[1]).not.toHaveProperty("consistency");
    expect(log[2]).toMatchObject({ op: "day_end", reflection: null });
  });
});
