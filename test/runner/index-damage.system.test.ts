import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { brokerConfig } from "../../src/engine/broker-config.js";
import { runBacktest } from "../../src/runner/run-backtest.js";
import { DEFAULT_RECALL_OPTIONS, type RunConfig } from "../../src/runner/run-config.js";
import type { RunEvent } from "../../src/runner/run-events.js";
import { DATA, ROOT, tempDir } from "../helpers/cli.js";
import { barOf, isMoment, readJsonl, runLlm, sliceCsv, turnMessages } from "../helpers/llm-run.js";
import { startScriptedServer } from "../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const goog = sliceCsv(path.join(DATA, "GOOG.csv"), 60, work, "GOOG.csv");

/** What happens to index.sqlite while the run goes, at its 25th memory write. */
type Damage = "none" | "delete" | "overwrite" | "garble";
const DONE: Record<Damage, string> = {
  none: "left alone",
  delete: "deleted",
  overwrite: "replaced by another file",
  garble: "overwritten in place",
};

function damage(file: string, how: Damage): void {
  if (how === "delete") fs.rmSync(file);
  // A new file put in its place (a copy, an editor's save): another inode, not a database.
  if (how === "overwrite") {
    fs.writeFileSync(`${file}.new`, "not a database\n".repeat(100));
    fs.renameSync(`${file}.new`, file);
  }
  // The same file's bytes overwritten in place.
  if (how === "garble") {
    const fd = fs.openSync(file, "r+");
    fs.writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, 0);
    fs.closeSync(fd);
  }
}

/**
 * The journal-and-recall fixture (a journal line a bar, a recall every 5: ctx.recall, or
 * ctx.recallAsync as an LLM trader's memory_recall goes), damaged mid-run.
 */
async function run(how: Damage, recall: "sync" | "async") {
  const runsRoot = path.join(work, `${how}-${recall}`);
  const config: RunConfig = {
    strategyPath: path.join(ROOT, "test/fixtures/strategies/journal-and-recall.ts"),
    data: [{ file: goog }],
    broker: brokerConfig({}),
    params: { every: "5", async: recall === "async" ? "1" : "0" },
    from: null,
    to: null,
    name: "index-damage",
    runsRoot,
    strict: false,
    tz: null,
    agent: null,
    presets: [],
    memoryFrom: null,
    recall: DEFAULT_RECALL_OPTIONS,
  };
  let dir = "";
  let writes = 0;
  const onEvent = (e: RunEvent) => {
    if (e.type === "run_started") dir = e.dir;
    if (e.type === "memory_write" && ++writes === 25) damage(path.join(dir, "index.sqlite"), how);
  };
  const result = await runBacktest(config, { onEvent });
  const recalls = readJsonl(path.join(dir, "decisions.jsonl")).flatMap((d) =>
    Array.isArray(d.recalls) ? (d.recalls as { citations: unknown }[]).map((r) => r.citations) : [],
  );
  return { result, dir, recalls };
}

describe("index.sqlite damaged mid-run is rebuilt from the memory files", async () => {
  for (const recall of ["sync", "async"] as const) {
    const undisturbed = await run("none", recall);

    it(`${recall} recall: the undisturbed run recalls at every 5th bar`, () => {
      expect(undisturbed.result.status).toBe("completed");
      expect(undisturbed.recalls).toHaveLength(12);
      expect(undisturbed.recalls.at(-1)).not.toEqual([]);
    });

    for (const how of ["delete", "overwrite", "garble"] as const) {
      it(`${recall} recall, index ${DONE[how]}: the run completes with the undisturbed run's citations, and the index is whole again`, async () => {
        const { result, dir, recalls } = await run(how, recall);
        expect(result.status, JSON.stringify(result.error)).toBe("completed");
        expect(recalls).toEqual(undisturbed.recalls);
        expect(result.index?.errors).toEqual([]);
        expect(result.index?.files).toBe(undisturbed.result.index?.files);
        expect(result.index?.chunks).toBe(undisturbed.result.index?.chunks);
        expect(fs.existsSync(path.join(dir, "index.sqlite"))).toBe(true);
      });
    }
  }
});

describe("an LLM trader's files memory over a damaged index.sqlite", async () => {
  // Each decision: a journal line, then a recall of the journal; then hold.
  const server = await startScriptedServer((req) => {
    if (isMoment(req) || turnMessages(req).length > 0) return { content: "hold" };
    return {
      toolCalls: [
        {
          name: "memory_log",
          arguments: JSON.stringify({ content: `GOOG watch at bar ${barOf(req)}` }),
        },
        { name: "memory_recall", arguments: JSON.stringify({ query: "GOOG watch", limit: 5 }) },
      ],
    };
  });
  afterAll(() => server.close());
  const data = sliceCsv(path.join(DATA, "GOOG.csv"), 20, work, "GOOG20.csv");

  const llmRun = async (how: Damage) => {
    let dir = "";
    let writes = 0;
    const { result } = await runLlm({
      baseURL: server.url,
      data: [data],
      // Its own parent: the LLM cache beside it is not shared with the other runs.
      runsRoot: path.join(work, `llm-${how}`, "runs"),
      prompt: "Trade GOOG.",
      agent: { moments: [] },
      onEvent: (e) => {
        if (e.type === "run_started") dir = e.dir;
        if (e.type === "memory_write" && ++writes === 8) {
          damage(path.join(dir, "index.sqlite"), how);
        }
      },
    });
    const recalls = readJsonl(path.join(dir, "decisions.jsonl")).flatMap((d) =>
      Array.isArray(d.recalls)
        ? (d.recalls as { citations: { path: string; startLine: number; score: number }[] }[]).map(
            (r) => r.citations,
          )
        : [],
    );
    return { result, recalls };
  };
  const undisturbed = await llmRun("none");

  for (const how of ["delete", "overwrite", "garble"] as const) {
    it(`index ${DONE[how]}: the run completes, every memory call answered as in the undisturbed run`, async () => {
      expect(undisturbed.result.status).toBe("completed");
      expect(undisturbed.recalls).toHaveLength(20);
      const { result, recalls } = await llmRun(how);
      expect(result.status, JSON.stringify(result.error)).toBe("completed");
      // No memory call reached the model as a failure.
      expect(result.llm?.agent.toolErrors).toEqual({});
      expect(recalls).toEqual(undisturbed.recalls);
    });
  }
});
