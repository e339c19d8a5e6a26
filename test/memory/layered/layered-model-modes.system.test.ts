import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveLayeredParams } from "../../../src/memory/layered/layered-config.js";
import { cli, DATA, replayArgs, tempDir } from "../../helpers/cli.js";
import { readJsonl, runLlm, sliceCsv, systemOf, userOf } from "../../helpers/llm-run.js";
import {
  type RecordedRequest,
  type ScriptedServer,
  type Step,
  startScriptedServer,
} from "../../helpers/scripted-openai-server.js";

const work = tempDir();
const data = sliceCsv(path.join(DATA, "GOOG.csv"), 2, work);

// Four memories of 9 tokens, 8 in common: token cosine 8 / 9 = 0.889, at least the 0.7 of
// compression and below the 0.95 of de-duplication. No sentiment word in them.
const SHARED = "GOOG gap opened near 100 on heavy volume";
const DAYS = ["monday", "tuesday", "wednesday", "thursday"];
const MEMORIES = DAYS.map((d) => `${SHARED} ${d}`);
const SUMMARY = "GOOG opened near 100 on heavy volume four days running.";

type Purpose = "importance" | "compress" | "decision";
const purposeOf = (r: RecordedRequest): Purpose =>
  systemOf(r).startsWith("You rate how important")
    ? "importance"
    : systemOf(r).startsWith("You compress similar")
      ? "compress"
      : "decision";

/** Bar 1's decision stores the four memories with neither layer nor importance; the memory's own
 * requests get `answers` (good ones or bad ones); every other turn holds. */
function script(answers: { importance: string; compress: string }, seen: RecordedRequest[]) {
  return (req: RecordedRequest): Step => {
    seen.push(req);
    const purpose = purposeOf(req);
    if (purpose !== "decision") return { content: answers[purpose] };
    const body = req.body as { messages: unknown[] };
    if (body.messages.length > 2 || !userOf(req).includes("Bar 1 of")) return { content: "hold" };
    return {
      toolCalls: MEMORIES.map((content) => ({
        name: "memory_store",
        arguments: JSON.stringify({ content }),
      })),
    };
  };
}

const GOOD = {
  importance:
    '```json\n{"marketImpact": 0.5, "novelty": 0.4, "relevance": 0, "source": 0.6, "urgency": 0.2}\n```',
  compress: SUMMARY,
};
// Not five factors in [0, 1]; a summary of blanks only.
const BAD = { importance: '{"marketImpact": 2}', compress: "   " };

let server: ScriptedServer;
const good: RecordedRequest[] = [];
const bad: RecordedRequest[] = [];
let badServer: ScriptedServer;
// A low recall threshold: the summary, with its provenance line, is far from any short query.
const layered = resolveLayeredParams({
  importanceMode: "model",
  compressMode: "model",
  recallThreshold: 0.1,
});
const run = (url: string, name: string, cache = false) =>
  runLlm({
    baseURL: url,
    data: [data],
    runsRoot: path.join(work, name),
    agent: { cache, moments: [] },
    memory: { system: "layered", config: layered },
  });

beforeAll(async () => {
  server = await startScriptedServer(script(GOOD, good));
  badServer = await startScriptedServer(script(BAD, bad));
});
afterAll(async () => {
  await server.close();
  await badServer.close();
  fs.rmSync(work, { recursive: true, force: true });
});

const purposes = (dir: string) =>
  readJsonl(path.join(dir, "transcript.jsonl")).map((l) => l.purpose ?? "decision");

describe('layered memory with importanceMode and compressMode "model"', () => {
  it("scores with the model's factors and writes the summary with the model; cache and replay answer them", async () => {
    const r = await run(server.url, "good", true);
    expect(r.result.status).toBe("completed");
    // One scoring request per store (within bar 1's decision), then one summary request at bar
    // 1's day end, before bar 2's decision.
    expect(good.map(purposeOf)).toEqual([
      "decision",
      "importance",
      "importance",
      "importance",
      "importance",
      "decision",
      "compress",
      "decision",
    ]);
    // The scoring request shows the memory and the bar's facts; the second shows the first
    // memory as the most alike kept one.
    const second = good[2] as RecordedRequest;
    expect(userOf(second)).toContain(`Memory:\n${MEMORIES[1]}`);
    expect(userOf(second)).toContain("- holdings: none");
    expect(userOf(second)).toContain(`The kept memories most alike:\n- ${MEMORIES[0]}`);
    // The summary request lists the four memories, oldest first.
    expect(userOf(good[6] as RecordedRequest)).toBe(
      ["4 similar memories, oldest first:", ...MEMORIES.map((m, k) => `${k + 1}. ${m}`)].join("\n"),
    );
    const log = readJsonl(path.join(r.dir, "layered.jsonl"));
    // 0.5 × 30 + 0.4 × 25 + 0 × 20 + 0.6 × 15 + 0.2 × 10 = 15 + 10 + 9 + 2 = 36 < 55: short.
    const stores = log.filter((l) => l.op === "store");
    expect(stores.map((s) => [s.layer, s.importance, s.scoredBy])).toEqual(
      MEMORIES.map(() => ["short", 36, "model"]),
    );
    expect(stores[0]?.factors).toEqual({
      marketImpact: 0.5,
      novelty: 0.4,
      relevance: 0,
      source: 0.6,
      urgency: 0.2,
    });
    // Four alike short memories (more than 3) at the day end: one mid memory, the model's text.
    const dayEnd = log.find((l) => l.op === "day_end");
    expect(dayEnd?.compressed).toEqual([
      {
        id: 5,
        of: [1, 2, 3, 4],
        content: `${SUMMARY}\n(summary of 4 similar memories: #1, #2, #3, #4; stored 2004-08-19 to 2004-08-19)`,
      },
    ]);
    expect(r.result.memory).toMatchObject({
      modelImportance: 4,
      modelImportanceFallbacks: 0,
      modelSummaries: 1,
      modelSummaryFallbacks: 0,
      compressions: 1,
      mid: 1,
      short: 0,
    });
    // The next decision shows the model's summary as the mid memory.
    expect(userOf(good[7] as RecordedRequest)).toContain(`[mid #5, 2004-08-19, importance 60.0`);
    expect(userOf(good[7] as RecordedRequest)).toContain(SUMMARY);
    // The usage meter counts the memory's calls with the decisions'.
    const usage = r.result.llm?.usage as { byModel: Record<string, { calls: number }> };
    expect(usage.byModel["gpt-4o-mini"]?.calls).toBe(8);
    // Each call is in the transcript with its purpose.
    expect(purposes(r.dir)).toEqual(good.map((q) => purposeOf(q)).map(transcriptPurpose));

    // The same run again: every answer, the memory's too, comes from the response cache.
    const asked = good.length;
    const again = await run(server.url, "again", true);
    expect(good.length).toBe(asked);
    expect(fs.readFileSync(path.join(again.dir, "layered.jsonl"), "utf8")).toBe(
      fs.readFileSync(path.join(r.dir, "layered.jsonl"), "utf8"),
    );

    // The replay: no request, the same log and counts.
    const rep = cli(replayArgs(r.result.id, path.join(work, "good"), "--json"), work);
    expect(rep.status, rep.stderr).toBe(0);
    expect(good.length).toBe(asked);
    const replayed = JSON.parse(rep.stdout);
    expect(replayed.memory).toEqual(r.result.memory);
    expect(fs.readFileSync(path.join(work, "good", replayed.id, "layered.jsonl"), "utf8")).toBe(
      fs.readFileSync(path.join(r.dir, "layered.jsonl"), "utf8"),
    );

    // recall --as-of rebuilds the store from the log: the summary is the model's.
    const recall = cli(
      ["recall", r.result.id, "heavy volume", "--runs-dir", path.join(work, "good"), "--json"],
      work,
    );
    expect(recall.status, recall.stderr).toBe(0);
    expect(JSON.parse(recall.stdout).citations[0].snippet).toContain(SUMMARY);
  });

  it("falls back to the rules on bad answers, counted and warned", async () => {
    const warnings: string[] = [];
    const r = await runLlm({
      baseURL: badServer.url,
      data: [data],
      runsRoot: path.join(work, "bad"),
      agent: { cache: false, moments: [] },
      memory: { system: "layered", config: layered },
      onEvent: (e) => {
        if (e.type === "warning") warnings.push(e.message);
      },
    });
    expect(r.result.status).toBe("completed");
    expect(bad.map(purposeOf).filter((p) => p !== "decision")).toEqual([
      "importance",
      "importance",
      "importance",
      "importance",
      "compress",
    ]);
    const log = readJsonl(path.join(r.dir, "layered.jsonl"));
    const stores = log.filter((l) => l.op === "store");
    // The rule at the first bar: no bar before it (impact 0, urgency 0); GOOG named but not held
    // (relevance 0.5: 10); no trade (source 0.6: 9); novelty 1 for the first (25), then
    // 1 - 8/9 = 0.111111 (2.777775). 44, then 21.777775: short.
    expect(stores.map((s) => [s.layer, s.importance, s.scoredBy])).toEqual([
      ["short", 44, "fallback"],
      ["short", 21.777775, "fallback"],
      ["short", 21.777775, "fallback"],
      ["short", 21.777775, "fallback"],
    ]);
    expect(stores[1]?.factors).toEqual({
      marketImpact: 0,
      novelty: 0.111111,
      relevance: 0.5,
      source: 0.6,
      urgency: 0,
    });
    // The rule's summary: the newest memory's text; no model text logged.
    expect(log.find((l) => l.op === "day_end")?.compressed).toEqual([{ id: 5, of: [1, 2, 3, 4] }]);
    expect(r.result.memory).toMatchObject({
      modelImportance: 0,
      modelImportanceFallbacks: 4,
      modelSummaries: 0,
      modelSummaryFallbacks: 1,
    });
    // Said once per kind.
    expect(warnings.filter((w) => w.startsWith("layered memory:"))).toHaveLength(2);
  });
});

describe("the token budget", () => {
  it("holds the memory's calls to --max-tokens: past it the rule scores", async () => {
    const seen: RecordedRequest[] = [];
    const budgeted = await startScriptedServer(script(GOOD, seen));
    try {
      // Each call bills 15 tokens (10 prompt, 5 completion): the decision and two scorings spend
      // 45, so the third scoring is refused before it is sent, and so is the fourth.
      const r = await runLlm({
        baseURL: budgeted.url,
        data: [data],
        runsRoot: path.join(work, "budget"),
        agent: { cache: false, moments: [], maxTokens: 45 },
        memory: { system: "layered", config: layered },
      });
      expect(seen.map(purposeOf)).toEqual(["decision", "importance", "importance"]);
      const stores = readJsonl(path.join(r.dir, "layered.jsonl")).filter((l) => l.op === "store");
      expect(stores.map((s) => s.scoredBy)).toEqual(["model", "model", "fallback", "fallback"]);
      expect(r.result.status).toBe("budget_exhausted");
    } finally {
      await budgeted.close();
    }
  });
});

function transcriptPurpose(p: Purpose): string {
  return p === "decision" ? "decision" : `layered.${p}`;
}
