import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_MEMORY_POLICY } from "../../src/memory/policy/memory-policy.js";
import { DATA, tempDir } from "../helpers/cli.js";
import { barOf, chatBody, isMoment, runLlm, sliceCsv, turnMessages } from "../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 2, work, "SPY.csv");

/** Each decision: log, log, recall, then hold (3 tool calls, 4 model calls). */
function trader(req: RecordedRequest): Step {
  const done = turnMessages(req).filter((m) => m.role === "tool").length;
  if (done < 2) return { toolCalls: [{ name: "memory_log", arguments: '{"content":"watch"}' }] };
  if (done === 2) {
    return { toolCalls: [{ name: "memory_recall", arguments: '{"query":"watch","limit":5}' }] };
  }
  return { content: "hold" };
}

// Compaction past 4 messages, keeping the last 1 whole.
const summary = {
  policy: {
    ...DEFAULT_MEMORY_POLICY,
    session_summary_message_threshold: 4,
    session_summary_keep_count: 1,
  },
  config: {},
  configFile: null,
  overrides: {},
  overridesFile: null,
};

const stateMessages = (r: RecordedRequest) =>
  chatBody(r)
    .messages.slice(2)
    .filter((m) => m.role === "user")
    .map((m) => m.content);

describe("the workspace state survives compaction", async () => {
  const server = await startScriptedServer(trader);
  afterAll(() => server.close());
  const run = async (name: string, workspaceState: boolean) => {
    const before = server.requests.length;
    const r = await runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot: path.join(work, name),
      memoryPolicy: summary,
      agent: { cache: false, moments: [], workspaceState },
    });
    expect(r.result.status).toBe("completed");
    const requests = server.requests
      .slice(before)
      .filter((q) => q.path.endsWith("/chat/completions") && !isMoment(q));
    return (bar: number) => requests.filter((q) => barOf(q) === bar);
  };

  it("appends the run's tool-call counts at each compaction, one message at a time", async () => {
    const bar = await run("on", true);
    // Bar 1's four calls: 2 and 4 messages (no compaction); 6 > 4: the first log's result is
    // stubbed, the state after 2 calls goes in; 9 > 4: the second log's result is stubbed and
    // the state replaces the earlier one.
    const first = bar(1);
    expect(first.map(stateMessages)).toEqual([
      [],
      [],
      ["Current agent state:\nTool calls this run: 2 (memory_log 2)."],
      ["Current agent state:\nTool calls this run: 3 (memory_log 2, memory_recall 1)."],
    ]);
    const last = chatBody(first[3]!).messages;
    expect(last.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "user",
    ]);
    expect(last[3]?.content).toMatch(/^\[older tool result summarised/);
    expect(last[5]?.content).toMatch(/^\[older tool result summarised/);
    // Bar 2 counts on from bar 1's 3 calls: the counters are the run's, not the turn's.
    expect(bar(2).map(stateMessages).slice(2)).toEqual([
      ["Current agent state:\nTool calls this run: 5 (memory_log 4, memory_recall 1)."],
      ["Current agent state:\nTool calls this run: 6 (memory_log 4, memory_recall 2)."],
    ]);
  });

  it("--no-workspace-state compacts without the state message", async () => {
    const bar = await run("off", false);
    for (const b of [1, 2]) {
      expect(bar(b).map(stateMessages)).toEqual([[], [], [], []]);
      expect(chatBody(bar(b)[3]!).messages[3]?.content).toMatch(/^\[older tool result summarised/);
    }
  });
});
