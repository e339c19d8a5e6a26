import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { brokerConfig } from "../../src/engine/broker-config.js";
import { UsageError } from "../../src/errors/run-errors.js";
import { JOURNAL_RECALL_DAYS } from "../../src/memory/recall/index.js";
import { parseDayKey } from "../../src/memory/sim-time.js";
import { recallRun } from "../../src/report/recall-run.js";
import { runBacktest } from "../../src/runner/run-backtest.js";
import {
  DEFAULT_RECALL_OPTIONS,
  type RecallOptions,
  type RunConfig,
} from "../../src/runner/run-config.js";
import type { Citation } from "../../src/strategy/types.js";
import { DATA, ROOT, tempDir } from "../helpers/cli.js";
import { isMoment, readJsonl, runLlm, sliceCsv, turnMessages } from "../helpers/llm-run.js";
import { startScriptedServer } from "../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const STRATEGY = path.join(ROOT, "test/fixtures/strategies/journal-and-recall.ts");
const goog = sliceCsv(path.join(DATA, "GOOG.csv"), 45, work, "GOOG.csv");

interface Recall {
  query: string;
  citations: Citation[];
}

function codeConfig(
  runsRoot: string,
  params: Record<string, string>,
  recall: Partial<RecallOptions>,
): RunConfig {
  return {
    strategyPath: STRATEGY,
    data: [{ file: goog }],
    broker: brokerConfig({}),
    params,
    from: null,
    to: null,
    name: "recall-test",
    runsRoot,
    strict: false,
    tz: null,
    agent: null,
    presets: [],
    memoryFrom: null,
    recall: { ...DEFAULT_RECALL_OPTIONS, ...recall },
  };
}

async function codeRun(params: Record<string, string>, recall: Partial<RecallOptions> = {}) {
  const runsRoot = path.join(work, "runs");
  const config = codeConfig(runsRoot, params, recall);
  const result = await runBacktest(config);
  const dir = path.join(runsRoot, result.id);
  const recalls = readJsonl(path.join(dir, "decisions.jsonl"))
    .filter((d) => Array.isArray(d.recalls) && (d.recalls as unknown[]).length > 0)
    .map((d) => ({ time: String(d.time), bar: Number(d.bar), recall: (d.recalls as Recall[])[0] }));
  return { result, dir, recalls };
}

/** Embeddings with meaning scripted: "marker" texts point one way, everything else another. */
const embed = (input: string[]) => input.map((t) => (t.includes("marker") ? [1, 0] : [0, 1]));

describe("code strategies recall through the run's FTS5 index", async () => {
  const { result, dir, recalls } = await codeRun({ every: "10" });

  it("records the citations of every ctx.recall in decisions.jsonl", () => {
    expect(result.status, JSON.stringify(result.error)).toBe("completed");
    expect(recalls.length).toBeGreaterThanOrEqual(4);
    for (const r of recalls) expect(r.recall?.query).toBe("marker");
  });

  it("answers as of the bar: no later entry, journals of the last 5 trading days, the note always", () => {
    // The strategy logs every bar, so the journal files are the run's trading days.
    const tradingDays = fs
      .readdirSync(path.join(dir, "journal"))
      .map((f) => parseDayKey(f.slice(0, 10)) as number)
      .sort((a, b) => a - b);
    for (const { time, recall } of recalls) {
      const now = parseDayKey(time.slice(0, 10)) as number;
      const floor = tradingDays.filter((d) => d <= now).at(-JOURNAL_RECALL_DAYS) ?? 0;
      const journal = recall?.citations.filter((c) => c.source === "journal") ?? [];
      expect(journal.length).toBeGreaterThan(0);
      for (const c of journal) {
        const day = parseDayKey(path.basename(c.path, ".md")) as number;
        expect(day, `${c.path} cited at ${time}`).toBeLessThanOrEqual(now);
        expect(day, `${c.path} cited at ${time}`).toBeGreaterThanOrEqual(floor);
      }
      // Five trading days can span a weekend: more than five calendar days.
      expect(new Set(journal.map((c) => c.path)).size).toBe(
        Math.min(JOURNAL_RECALL_DAYS, tradingDays.filter((d) => d <= now).length),
      );
      // Today's own entry is there: the line the bar just wrote.
      expect(journal.some((c) => c.path === `journal/${time.slice(0, 10)}.md`)).toBe(true);
      expect(recall?.citations.some((c) => c.path === "notes/setup.md")).toBe(true);
    }
  });

  it("cites lines that really hold the cited text", () => {
    for (const { recall } of recalls) {
      for (const c of recall?.citations ?? []) {
        const lines = fs.readFileSync(path.join(dir, c.path), "utf8").split("\n");
        expect(lines.slice(c.startLine - 1, c.endLine).join("\n")).toContain("marker");
      }
    }
  });

  it("leaves index.sqlite in the run directory and its health in result.json", () => {
    expect(fs.existsSync(path.join(dir, "index.sqlite"))).toBe(true);
    const journals = fs.readdirSync(path.join(dir, "journal")).length;
    // playbook + setup note + one journal file per bar
    expect(result.index?.files).toBe(2 + journals);
    expect(result.index?.chunks).toBeGreaterThanOrEqual(2 + 45);
    expect(result.index?.errors).toEqual([]);
    expect(result.index?.embeddings).toBeNull();
    const onDisk = JSON.parse(fs.readFileSync(path.join(dir, "result.json"), "utf8"));
    expect(onDisk.index).toEqual(result.index);
  });
});

describe("hybrid recall in a run (embeddings from a scripted server on 127.0.0.1)", async () => {
  const server = await startScriptedServer([], { embeddings: embed });
  const noEmbeddings = await startScriptedServer([]);
  afterAll(async () => {
    await server.close();
    await noEmbeddings.close();
  });
  const hybrid = { embedModel: "embed-test", embedBaseURL: server.url };

  it("recallAsync merges keywords and vectors; vectors are cached in the index", async () => {
    const { result, recalls } = await codeRun({ every: "10", async: "1" }, hybrid);
    expect(result.status, JSON.stringify(result.error)).toBe("completed");
    expect(recalls.length).toBeGreaterThanOrEqual(4);
    const embedded = server.requests.filter((r) => r.path === "/v1/embeddings");
    expect(embedded.length).toBeGreaterThan(0);
    expect((embedded[0]?.body as { model?: string } | undefined)?.model).toBe("embed-test");
    expect(result.index?.embeddings?.model).toBe("embed-test");
    expect(result.index?.embeddings?.vectors).toBeGreaterThan(0);
    // 0.5 * keyword score + 0.5 * cosine 1: every "marker" hit scores above one half, which
    // keywords alone never reach here ("marker" is in every chunk, so its IDF is small).
    for (const { recall } of recalls) {
      for (const c of recall?.citations ?? []) {
        expect(c.snippet).toContain("marker");
        expect(c.score).toBeGreaterThan(0.5);
      }
    }
  });

  it("recall --as-of answers every hybrid recall of the run identically (vectors from the index)", async () => {
    const { dir, recalls } = await codeRun({ every: "7", async: "1" }, hybrid);
    expect(recalls.length).toBeGreaterThanOrEqual(5);
    for (const { time, recall } of recalls) {
      const seq = (recall as Recall & { seq: number }).seq;
      const out = await recallRun(dir, "marker", { limit: 20, asOf: time, seq, env: {} });
      expect(out.mode).toBe("hybrid");
      expect(out.citations, time).toEqual(recall?.citations);
    }
  });

  it("synchronous ctx.recall is refused with the fix, not silently keyword-only", async () => {
    const { result } = await codeRun({ every: "10" }, hybrid);
    expect(result.status).toBe("failed");
    expect(result.error?.type).toBe("SyncRecallError");
    expect(result.error?.message).toContain("await ctx.recallAsync");
  });

  it("a failing embeddings endpoint fails the run with a clear error", async () => {
    const { result } = await codeRun(
      { every: "10", async: "1" },
      { embedModel: "embed-test", embedBaseURL: noEmbeddings.url },
    );
    expect(result.status).toBe("failed");
    expect(result.error?.type).toBe("RecallEmbeddingError");
    expect(result.error?.message).toContain(`${noEmbeddings.url}/embeddings`);
  });

  it("an LLM's memory_recall is hybrid too, and an embeddings failure ends the run", async () => {
    const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 6, work, "SPY.csv");
    const script = (url: string) =>
      startScriptedServer(
        (req) => {
          if (isMoment(req)) return { content: "Nothing to note." };
          const done = turnMessages(req).filter((m) => m.role === "tool").length;
          if (done > 0) return { content: "Hold." };
          return {
            toolCalls: [
              {
                name: "memory_recall",
                arguments: JSON.stringify({ query: "marker rule", limit: 3 }),
              },
            ],
          };
        },
        url === "ok" ? { embeddings: embed } : {},
      );
    for (const mode of ["ok", "broken"]) {
      const llm = await script(mode);
      const preset = path.join(work, "rule.md");
      fs.writeFileSync(preset, "# Rule\nmarker: never average down.\n");
      const { result, dir } = await runLlm({
        baseURL: llm.url,
        data: [spy],
        runsRoot: path.join(work, `llm-${mode}`),
        presets: [{ target: "notes/rule.md", file: preset }],
        recall: { embedModel: "embed-test", embedBaseURL: llm.url },
      });
      // The server stays up through the replays below: any request they made would be recorded.
      const served = llm.requests.length;
      if (mode === "ok") {
        expect(result.status, JSON.stringify(result.error)).toBe("completed");
        const first = readJsonl(path.join(dir, "decisions.jsonl")).find(
          (d) => d.type === "decision",
        ) as { recalls: Recall[]; toolCalls: { error: unknown }[] };
        expect(first.toolCalls[0]?.error).toBeNull();
        expect(first.recalls[0]?.citations[0]?.path).toBe("notes/rule.md");
        expect(result.index?.embeddings?.vectors).toBeGreaterThan(0);
        // The replay answers every recall from the recorded index, with no request to the server.
        const replayOf = (recorded: string) =>
          runLlm({
            baseURL: llm.url,
            data: [spy],
            runsRoot: path.join(work, "llm-replay"),
            presets: [{ target: "notes/rule.md", file: preset }],
            recall: { embedModel: "embed-test", embedBaseURL: llm.url },
            agent: { replay: recorded, cache: false },
          });
        const replay = await replayOf(dir);
        expect(replay.result.status, JSON.stringify(replay.result.error)).toBe("completed");
        const recallsOf = (d: string) =>
          readJsonl(path.join(d, "decisions.jsonl")).map((x) => x.recalls);
        expect(recallsOf(replay.dir)).toEqual(recallsOf(dir));
        // Without the recorded vectors the replay cannot recall offline, and says so.
        fs.rmSync(path.join(dir, "index.sqlite"));
        const blind = await replayOf(dir);
        expect(blind.result.status).toBe("failed");
        expect(blind.result.error?.message).toContain("the replay has diverged");
        expect(llm.requests.length).toBe(served);
        await llm.close();
      } else {
        expect(result.status).toBe("failed");
        expect(result.error?.type).toBe("RecallEmbeddingError");
        expect(result.error?.message).toContain("remove the embeddings option");
        await llm.close();
      }
    }
  });
});

describe("recall options that cannot work", () => {
  it("--embed-base-url without --embed-model is bad usage before any run directory exists", async () => {
    const root = path.join(work, "runs-bad");
    await expect(codeRunAt(root, { embedBaseURL: "http://127.0.0.1:9/v1" })).rejects.toThrow(
      UsageError,
    );
    expect(fs.existsSync(root)).toBe(false);
  });
});

function codeRunAt(runsRoot: string, recall: Partial<RecallOptions>) {
  return runBacktest(codeConfig(runsRoot, {}, recall));
}
