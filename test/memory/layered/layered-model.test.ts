import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveLayeredParams } from "../../../src/memory/layered/layered-config.js";
import { parseFactors } from "../../../src/memory/layered/layered-model.js";
import { LayeredMemory, readLayeredLog } from "../../../src/memory/layered/layered-system.js";
import { tempDir } from "../../helpers/cli.js";

describe("the model's importance factors are checked", () => {
  it("reads one JSON object of five numbers in [0, 1], in a code fence or not", () => {
    const x = { marketImpact: 0.1234567, novelty: 1, relevance: 0, source: 0.6, urgency: 0.2 };
    expect(parseFactors(`\`\`\`json\n${JSON.stringify(x)}\n\`\`\``)).toEqual({
      ...x,
      marketImpact: 0.123457,
    });
    expect(parseFactors(JSON.stringify({ ...x, urgency: 1.5 }))).toBeNull();
    expect(parseFactors(JSON.stringify({ ...x, novelty: undefined }))).toBeNull();
    expect(parseFactors("high importance")).toBeNull();
    expect(parseFactors("{not json}")).toBeNull();
  });
});

describe("a model mode without the run's model (a code strategy's run)", () => {
  it("scores by the rule, synchronously, and counts no model answer", () => {
    const dir = tempDir();
    try {
      const params = resolveLayeredParams({ importanceMode: "model", compressMode: "model" });
      const system = new LayeredMemory(dir, params);
      const store = system.tools.find((t) => t.name === "memory_store");
      const at = { time: Date.UTC(2024, 0, 2), index: 0, label: "2024-01-02" };
      const out = store?.run({ content: "breakout above ten" }, at);
      // Not a promise: ctx.memory.use stays synchronous.
      expect(out).not.toBeInstanceOf(Promise);
      // No market: impact 0, urgency 0, relevance 0; novelty 1 (25); source 0.6 (9): 34.
      expect(readLayeredLog(dir)[0]).toMatchObject({ importance: 34, layer: "short" });
      expect(readLayeredLog(dir)[0]).not.toHaveProperty("scoredBy");
      system.finish();
      expect(system.stats()).toMatchObject({ modelImportance: 0, modelImportanceFallbacks: 0 });
      expect(fs.existsSync(path.join(dir, "layered.jsonl"))).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
