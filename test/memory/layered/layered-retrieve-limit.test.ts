import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { resolveLayeredParams } from "../../../src/memory/layered/layered-config.js";
import { LayeredMemory, layeredMemoryFactory } from "../../../src/memory/layered/layered-system.js";
import type { MemoryToolSpec } from "../../../src/memory/memory-system.js";
import { tempDir } from "../../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const DAY = 86_400_000;
const T0 = Date.UTC(2012, 0, 2);

function tool(system: LayeredMemory, name: string): MemoryToolSpec {
  const found = system.tools.find((t) => t.name === name);
  if (found === undefined) throw new Error(`no tool ${name}`);
  return found;
}

async function use(system: LayeredMemory, name: string, args: unknown, index: number) {
  const t = tool(system, name);
  const site = { time: T0 + index * DAY, index, label: `bar ${index}` };
  return (await t.run(t.parameters.parse(args), site)).result;
}

// The query is "breakout note": its token cosine with "breakout note <i>" is 2 / sqrt(2 × 3) =
// 0.816, above the 0.7 recall threshold ("breakout" alone: 1 / sqrt(3) = 0.577, below it).
describe("layered memory_recall obeys the memory policy's retrieve_limit", () => {
  const dir = fs.mkdtempSync(`${work}/limit-`);
  // The policy in force: retrieve_limit 2 (as `--memory-policy retrieve_limit=2`).
  const system = new LayeredMemory(dir, resolveLayeredParams(undefined), null, () => 2);
  const layers = ["short", "short", "mid", "long", "long"] as const;

  it("returns 2 citations of 5 matching memories, where the tool's limit alone allows 5", async () => {
    for (const [i, layer] of layers.entries()) {
      await use(system, "memory_store", { content: `breakout note ${i}`, layer }, 0);
    }
    await use(system, "memory_reflect", { content: "a breakout needs volume" }, 0);
    const capped = (await use(system, "memory_recall", { query: "breakout note" }, 1)) as unknown[];
    expect(capped).toHaveLength(2);
    // Without a policy the same memories give more than 2: the cap is the policy's doing.
    const free = new LayeredMemory(fs.mkdtempSync(`${work}/free-`), system.params);
    for (const [i, layer] of layers.entries()) {
      await use(free, "memory_store", { content: `breakout note ${i}`, layer }, 0);
    }
    const all = (await use(free, "memory_recall", { query: "breakout note" }, 1)) as unknown[];
    expect(all.length).toBeGreaterThan(2);
    free.finish();
    system.finish();
  });

  it("recall --as-of of the finished run caps at the recorded retrieve_limit too", () => {
    const ask = (retrieveLimit?: number) =>
      layeredMemoryFactory.recallRun?.({
        dir,
        config: undefined,
        query: "breakout note",
        limit: 8,
        asOf: T0 + DAY,
        seq: null,
        recordedSeq: null,
        ...(retrieveLimit === undefined ? {} : { retrieveLimit }),
      });
    expect(ask(2)?.citations).toHaveLength(2);
    expect(ask()?.citations.length).toBeGreaterThan(2);
  });
});
