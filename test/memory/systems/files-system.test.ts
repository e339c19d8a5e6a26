import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { alignSeries } from "../../../src/engine/align-series.js";
import { brokerConfig } from "../../../src/engine/broker-config.js";
import { FilesMemory } from "../../../src/memory/systems/files-system.js";
import { MemoryWorkspace } from "../../../src/memory/workspace.js";
import { RunRecall } from "../../../src/rundir/run-recall.js";
import { memoryPort } from "../../../src/runner/memory-port.js";
import { memoryToolbox } from "../../../src/runner/memory-toolbox.js";
import { DEFAULT_RECALL_OPTIONS } from "../../../src/runner/run-config.js";
import { simulate } from "../../../src/runner/simulate.js";
import type { Citation, Strategy } from "../../../src/strategy/types.js";
import { daily, series } from "../../engine/helpers.js";
import { tempDir } from "../../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const data = alignSeries([
  series(
    "AAA",
    daily("2024-01-01", [
      [10, 10, 10, 10],
      [10, 10, 10, 10],
    ]),
  ),
]);

describe("files behind the MemorySystem interface", () => {
  it("ctx.memory.use runs the files memory's tools: same files and decision records as ctx.log / ctx.note", async () => {
    const dir = path.join(work, "run");
    fs.mkdirSync(dir);
    const workspace = new MemoryWorkspace({ dir, runId: "r1" });
    workspace.init("# Playbook: t\n");
    const recall = new RunRecall(dir, DEFAULT_RECALL_OPTIONS);
    const port = memoryPort(workspace, recall);
    const system = new FilesMemory(port, () => ({ ...workspace.stats() }));
    let found: Citation[] = [];
    let written: unknown = null;
    const strategy: Strategy<unknown> = {
      name: "files-user",
      async onBar(ctx) {
        if (ctx.index === 0) {
          written = ctx.memory.use("memory_log", { content: "bought the breakout" });
          ctx.memory.use("memory_note", { key: "position_AAA", content: "long 1 @ 10" });
        }
        if (ctx.index === 1) {
          found = (await ctx.memory.use("memory_recall", { query: "breakout" })) as Citation[];
        }
      },
    };
    const out = await simulate({
      data,
      broker: brokerConfig({ initialCash: 100 }),
      strategy,
      memory: port,
      toolbox: memoryToolbox(system),
    });
    recall.close();
    expect(written).toEqual({ ok: true, written: "journal/2024-01-01.md" });
    expect(fs.readFileSync(path.join(dir, "journal", "2024-01-01.md"), "utf8")).toContain(
      "[00:00] bought the breakout",
    );
    expect(found.map((c) => [c.path, c.source])).toEqual([["journal/2024-01-01.md", "journal"]]);
    const lines = [...out.decisionLog].map((l) => JSON.parse(l));
    expect(lines[0].memory).toEqual([
      { tool: "log", chars: 19 },
      { tool: "note", key: "position_AAA", chars: 11 },
    ]);
    // Write states: 1 the playbook the index was opened with, 2 the journal, 3 the note.
    expect(lines[1].recalls[0]).toMatchObject({ query: "breakout", seq: 3 });
    // The decision context: the playbook in the prefix, the note of a held symbol.
    expect(system.stableSection()).toEqual({
      heading: "Playbook (playbook.md)",
      body: "# Playbook: t\n",
    });
    expect(system.volatileSections({ time: 0, index: 0, held: ["AAA"] })).toEqual([
      {
        heading: "Position notes",
        body: expect.stringMatching(/^## position_AAA\n\n[\s\S]*long 1 @ 10$/),
      },
    ]);
    expect(system.stats()).toMatchObject({ journalFiles: 1, journalEntries: 1, notes: 1 });
  });
});
