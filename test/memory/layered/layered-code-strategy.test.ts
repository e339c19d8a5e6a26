import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { alignSeries } from "../../../src/engine/align-series.js";
import { brokerConfig } from "../../../src/engine/broker-config.js";
import { resolveLayeredParams } from "../../../src/memory/layered/layered-config.js";
import { LayeredMemory, readLayeredLog } from "../../../src/memory/layered/layered-system.js";
import { memoryToolbox } from "../../../src/runner/memory-toolbox.js";
import { simulate } from "../../../src/runner/simulate.js";
import { StrategyUsageError } from "../../../src/strategy/strategy-usage-error.js";
import type { Citation, Strategy } from "../../../src/strategy/types.js";
import { daily, series } from "../../engine/helpers.js";
import { tempDir } from "../../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

// Four daily bars, 2024-01-01 (Monday) to 2024-01-04.
const data = alignSeries([
  series(
    "AAA",
    daily("2024-01-01", [
      [10, 10, 10, 10],
      [10, 10, 10, 10],
      [10, 10, 10, 10],
      [10, 10, 10, 10],
    ]),
  ),
]);

describe("ctx.memory: a code strategy uses the run's memory system as tools", () => {
  it("stores through ctx.memory.use, sees the day-end maintenance, and recalls by keywords", async () => {
    const system = new LayeredMemory(work, resolveLayeredParams(undefined));
    let recalled: Citation[] = [];
    let error: unknown = null;
    const strategy: Strategy<unknown> = {
      name: "layered-user",
      onBar(ctx) {
        expect(ctx.memory.system).toBe("layered");
        if (ctx.index === 0)
          ctx.memory.use("memory_store", { content: "breakout above ten", importance: 90 });
        if (ctx.index === 2)
          // "breakout above" vs "breakout above ten": token cosine 2 / sqrt(2 × 3) = 0.816 ≥ 0.7.
          recalled = ctx.memory.use("memory_recall", { query: "breakout above" }) as Citation[];
        if (ctx.index === 3) {
          try {
            ctx.memory.use("memory_store", { content: "x", importance: 101 });
          } catch (err) {
            error = err;
          }
        }
      },
    };
    const out = await simulate({
      data,
      broker: brokerConfig({ initialCash: 100 }),
      strategy,
      toolbox: memoryToolbox(system),
      onMemoryMoment: (m) => system.onMoment(m),
    });
    system.finish();
    expect(out.status).toBe("completed");
    // No layer, importance 90 > 85 → long. Day ends: 90 × 0.96 = 86.4 (day 2), 82.944 < 85 →
    // mid at day 3 (age 0), 82.944 × 0.96 = 79.62624 on day 4.
    expect(system.state.items).toEqual([
      expect.objectContaining({ id: 1, layer: "mid", importance: expect.closeTo(79.62624, 8) }),
    ]);
    expect(recalled.map((c) => [c.source, c.startLine])).toEqual([["long", 1]]);
    expect(error).toBeInstanceOf(StrategyUsageError);
    expect(String(error)).toMatch(/importance/);
    expect(system.stats()).toMatchObject({
      stores: 1,
      demotions: 1,
      recalls: 1,
      dayEnds: 4,
      mid: 1,
    });
    // The decisions record the store and the recall like the agent's.
    const lines = [...out.decisionLog].map((l) => JSON.parse(l));
    expect(lines[0].memory).toEqual([{ tool: "store", key: "long", chars: 18 }]);
    expect(lines[1].recalls[0]).toMatchObject({ query: "breakout above", seq: 3 });
    // Rebuilt from the log: the same state.
    const rebuilt = new LayeredMemory(work, resolveLayeredParams(undefined));
    rebuilt.restore(system.checkpoint());
    expect(readLayeredLog(work)).toHaveLength(5);
    expect(rebuilt.state.items).toEqual(system.state.items);
    expect(rebuilt.stats()).toEqual(system.stats());
  });
});
