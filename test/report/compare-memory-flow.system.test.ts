import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, DATA, readJson, runArgs, runDirs, tempDir } from "../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const runs = path.join(work, "runs");
const spy = path.join(DATA, "SPY_D.csv");

describe("compare: index health and the layered flow", () => {
  // A layered run storing one memory a bar, and a files run over 10 daily bars.
  const layered = cli(
    runArgs("test/fixtures/strategies/layered-writer.ts", spy, runs, "--to", "2000-03-31").concat([
      "--memory",
      "layered",
    ]),
    work,
  );
  const files = cli(
    runArgs("test/fixtures/strategies/journal-and-recall.ts", spy, runs, "--to", "1999-11-12"),
    work,
  );
  const [a, b] = runDirs(runs);

  it("counts the flow from layered.jsonl as the system's own statistics do", () => {
    expect(layered.status, layered.stderr).toBe(0);
    expect(files.status, files.stderr).toBe(0);
    const out = cli(["compare", a!, b!, "--json"], work);
    expect(out.status, out.stderr).toBe(0);
    const c = JSON.parse(out.stdout);
    const result = readJson<{ period: { bars: number }; memory: Record<string, number> }>(
      path.join(a!, "result.json"),
    );
    const flow = c.runs[0].layeredFlow;
    // One store a bar; the moves and triggers as the live run counted them.
    expect(flow.stores).toBe(result.period.bars);
    expect(flow).toMatchObject({
      reflections: result.memory.reflections,
      promotions: result.memory.promotions,
      demotions: result.memory.demotions,
      removals: result.memory.removed,
    });
    // Out of the memory by de-duplication and compression: apart from the removals, as the
    // system counts them (absent from the log's counts when none happened).
    expect(flow.merged ?? 0).toBe(result.memory.merged);
    expect(flow.compressed ?? 0).toBe(result.memory.compressed);
    const triggers = Object.entries(flow)
      .filter(([k]) => k.startsWith("trigger:"))
      .reduce((sum, [, n]) => sum + (n as number), 0);
    expect(triggers).toBe(result.memory.reflectionTriggers);
    expect(result.memory.demotions).toBeGreaterThan(0);
    expect(c.runs[1].layeredFlow).toBeNull();
    expect(c.flowStats.slice(0, 5)).toEqual([
      "stores",
      "reflections",
      "promotions",
      "demotions",
      "removals",
    ]);
  });

  it("shows the index's files and chunks as the run left them", () => {
    const c = JSON.parse(cli(["compare", a!, b!, "--json"], work).stdout);
    const recorded = readJson<{ index: { chunks: number } }>(path.join(b!, "result.json")).index;
    // 10 journal days, the note, the playbook.
    expect(c.runs[1].common.index).toMatchObject({
      files: 12,
      chunks: recorded.chunks,
      vectors: null,
    });
    expect(c.runs[1].common.indexHealth).toBe("ok");
    const text = cli(["compare", a!, b!], work).stdout;
    expect(text).toContain("Memory flow (layered.jsonl)");
    expect(text).toMatch(/index files +\d+ +12/);
    expect(text).toMatch(/demotions +[1-9]\d* +—/);
  });
});
