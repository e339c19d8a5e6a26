import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DATA, tempDir } from "../../helpers/cli.js";
import { barOf, isMoment, runLlm, sliceCsv, turnMessages } from "../../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 3, work, "SPY.csv");

/** Bar 1 buys 5 SPY, bar 2 holds, bar 3 recalls "bought"; moments say nothing. */
function trader(req: RecordedRequest): Step {
  if (isMoment(req)) return { content: "nothing to add" };
  const done = turnMessages(req).some((m) => m.role === "tool");
  if (barOf(req) === 1 && !done) {
    return {
      toolCalls: [{ name: "place_order", arguments: '{"symbol":"SPY","side":"buy","quantity":5}' }],
    };
  }
  if (barOf(req) === 1) return { content: "bought the dip" };
  if (barOf(req) === 3 && !done) {
    return { toolCalls: [{ name: "memory_recall", arguments: '{"query":"bought"}' }] };
  }
  return { content: "hold" };
}

describe("decision traces of an LLM trader", async () => {
  const server = await startScriptedServer(trader);
  afterAll(() => server.close());

  it("trace each decision with its order and rationale, not the memory moments", async () => {
    const r = await runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot: path.join(work, "runs"),
      recall: { sources: ["traces"] },
      agent: { cache: false },
    });
    expect(r.result.status).toBe("completed");
    const traces = path.join(r.dir, "traces");
    const text = fs
      .readdirSync(traces)
      .sort()
      .map((f) => fs.readFileSync(path.join(traces, f), "utf8"));
    expect(text).toEqual([
      "# Decision traces 1999-11-01\n\n[00:00] decision: buy 5 SPY market -> working; why: bought the dip\n",
      "# Decision traces 1999-11-02\n\n[00:00] decision: no order; why: hold\n",
      "# Decision traces 1999-11-03\n\n[00:00] decision: no order; why: hold\n",
    ]);
    const lines = fs
      .readFileSync(path.join(r.dir, "decisions.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const recall = lines.find((d) => d.type === "decision" && d.recalls?.length > 0);
    expect(recall.time).toBe("1999-11-03");
    expect(recall.recalls[0].citations.map((c: { path: string }) => c.path)).toEqual([
      "traces/1999-11-01.md",
    ]);
  });
});
