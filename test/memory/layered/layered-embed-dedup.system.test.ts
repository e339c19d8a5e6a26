import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alignSeries } from "../../../src/engine/align-series.js";
import { brokerConfig } from "../../../src/engine/broker-config.js";
import { resolveLayeredParams } from "../../../src/memory/layered/layered-config.js";
import {
  LayeredMemory,
  layeredStateAt,
  reflectionEmbedder,
} from "../../../src/memory/layered/layered-system.js";
import { memoryToolbox } from "../../../src/runner/memory-toolbox.js";
import { simulate } from "../../../src/runner/simulate.js";
import type { Strategy } from "../../../src/strategy/types.js";
import { daily, series } from "../../engine/helpers.js";
import { DATA, tempDir } from "../../helpers/cli.js";
import {
  barOf,
  isMoment,
  readJsonl,
  runLlm,
  sliceCsv,
  turnMessages,
  userOf,
} from "../../helpers/llm-run.js";
import {
  type RecordedRequest,
  type ScriptedServer,
  type Step,
  startScriptedServer,
} from "../../helpers/scripted-openai-server.js";

// With --embed-model, layered de-duplicates reflections by the cosine of their embeddings (seed
// 003), not by token overlap; the vectors are logged so replays and rebuilds need no network.

const work = tempDir();
const runsRoot = path.join(work, "runs");
const params = resolveLayeredParams({ reflectionEveryDays: 5 });
let server: ScriptedServer;
let dir = "";

/** Bar 5's reflection, kept. */
const A = "Gaps on news fade within a week.";
/** Bar 9's: no word in common with A (token cosine 0), embedding cosine 0.99/√0.9901 ≈ 0.994937. */
const B = "Momentum after earnings persists for days.";
/** Run end: the same words as A (token cosine 1), an orthogonal embedding (cosine 0). */
const C = "Gaps on news fade within a week!";
const VECTORS: Record<string, number[]> = { [A]: [1, 0, 0], [B]: [0.99, 0.1, 0], [C]: [0, 0, 1] };

function script(req: RecordedRequest): Step {
  if (turnMessages(req).some((m) => m.role === "tool")) return { content: "done" };
  if (!isMoment(req)) return { content: "hold" };
  const text = userOf(req);
  const reflect = (content: string): Step => ({
    toolCalls: [{ name: "memory_reflect", arguments: JSON.stringify({ content }) }],
  });
  if (text.includes("The backtest ends at this bar")) return reflect(C);
  if (text.includes("A reflection is due")) return reflect(barOf(req) === 5 ? A : B);
  return { content: "nothing to add" };
}

const embedRequests = () => server.requests.filter((r) => r.path === "/v1/embeddings").length;

const run = (replay: string | null) =>
  runLlm({
    baseURL: server.url,
    data: [sliceCsv(path.join(DATA, "GOOG.csv"), 10, work)],
    runsRoot: path.join(runsRoot, replay === null ? "live" : "replay"),
    agent: { cache: false, ...(replay === null ? {} : { replay }) },
    recall: { embedModel: "embed-test", embedBaseURL: server.url },
    memory: { system: "layered", config: params },
  });

beforeAll(async () => {
  server = await startScriptedServer(script, {
    // Any other text (the file memory's index) gets one fixed vector.
    embeddings: (input) => input.map((t) => VECTORS[t] ?? [0, 1, 0]),
  });
  const live = await run(null);
  expect(live.result.status, JSON.stringify(live.result.error)).toBe("completed");
  dir = live.dir;
});

afterAll(async () => {
  await server.close();
  fs.rmSync(work, { recursive: true, force: true });
});

describe("layered reflections de-duplicated by embeddings (--embed-model)", () => {
  it("low token overlap but embedding cosine >= 0.95: logged as a duplicate with that similarity", () => {
    const log = readJsonl(path.join(dir, "layered.jsonl"));
    const reflections = log.filter(
      (l) => l.op === "duplicate" || (l.op === "store" && l.layer === "reflection"),
    );
    expect(reflections.map((l) => [l.op, l.content])).toEqual([
      ["store", A],
      ["duplicate", B],
      ["store", C],
    ]);
    const [first, dup] = reflections;
    // 0.99 / sqrt(0.99² + 0.1²) = 0.99 / 0.995038 = 0.994937 (float32 vectors, rounded to 1e-6).
    expect(dup).toMatchObject({ of: first?.id, similarity: 0.994937, by: "embedding" });
    expect(first?.vector).toEqual([1, 0, 0]);
    expect(dup?.vector).toHaveLength(3);
  });

  it("high token overlap but embeddings far apart: both reflections are kept", () => {
    const result = JSON.parse(fs.readFileSync(path.join(dir, "result.json"), "utf8"));
    expect(result.memory).toMatchObject({ reflections: 2, reflectionDuplicates: 1, reflection: 2 });
    const c = readJsonl(path.join(dir, "layered.jsonl")).find((l) => l.content === C);
    expect(c).toMatchObject({ op: "store", layer: "reflection", vector: [0, 0, 1] });
    // The log alone rebuilds the same state (recall --as-of, resume): no embedder involved.
    expect(layeredStateAt(dir, params, null).counts).toMatchObject({
      reflections: 2,
      reflectionDuplicates: 1,
    });
  });

  it("--replay makes no network call and reproduces layered.jsonl byte for byte", async () => {
    const before = server.requests.length;
    const embeds = embedRequests();
    const replay = await run(dir);
    expect(replay.result.status, JSON.stringify(replay.result.error)).toBe("completed");
    expect(server.requests.length).toBe(before);
    expect(embedRequests()).toBe(embeds);
    expect(fs.readFileSync(path.join(replay.dir, "layered.jsonl"), "utf8")).toBe(
      fs.readFileSync(path.join(dir, "layered.jsonl"), "utf8"),
    );
  });

  it("a code strategy awaits ctx.memory.use('memory_reflect'): the same embedding de-dup", async () => {
    const memDir = path.join(work, "code");
    fs.mkdirSync(memDir);
    const embed = reflectionEmbedder({ model: "embed-test", baseURL: server.url }, null);
    const system = new LayeredMemory(memDir, params, embed);
    const answers: unknown[] = [];
    const strategy: Strategy<unknown> = {
      name: "reflector",
      async onBar(ctx) {
        const content = [A, B, C][ctx.index];
        if (content !== undefined) {
          answers.push(await ctx.memory.use("memory_reflect", { content }));
        }
      },
    };
    const data = alignSeries([
      series(
        "AAA",
        daily("2024-01-01", [
          [10, 10, 10, 10],
          [10, 10, 10, 10],
          [10, 10, 10, 10],
        ]),
      ),
    ]);
    const out = await simulate({
      data,
      broker: brokerConfig({ initialCash: 100 }),
      strategy,
      toolbox: memoryToolbox(system),
      onMemoryMoment: (m) => system.onMoment(m),
    });
    system.finish();
    expect(out.status).toBe("completed");
    expect(answers).toEqual([
      { ok: true, id: 1, layer: "reflection", importance: 80 },
      { ok: true, duplicateOf: 1, stored: false },
      { ok: true, id: 2, layer: "reflection", importance: 80 },
    ]);
  });
});
