import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SESSION_SUMMARY_PROMPT } from "../../../src/agent/tool-loop.js";
import {
  DEFAULT_MEMORY_POLICY,
  type MemoryPolicy,
} from "../../../src/memory/policy/memory-policy.js";
import { DATA, tempDir } from "../../helpers/cli.js";
import {
  barOf,
  chatBody,
  isMoment,
  readJsonl,
  runLlm,
  sliceCsv,
  systemOf,
  turnMessages,
} from "../../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 30, work, "SPY.csv");
const STUB = /^\[older tool result summarised by the memory policy: \d+ characters omitted\]$/;

const policy = (p: Partial<MemoryPolicy>) => ({
  policy: { ...DEFAULT_MEMORY_POLICY, ...p },
  config: p,
  configFile: null,
  overrides: {},
  overridesFile: null,
});

const isSummary = (req: RecordedRequest) => systemOf(req) === SESSION_SUMMARY_PROMPT;

/**
 * Each decision: log "breakout watch", recall "breakout", hold, read from the turn's last message
 * (a summary replaces earlier ones, so counting them would not do). Summary requests get
 * `summary`.
 */
function trader(summary: Step) {
  return (req: RecordedRequest): Step => {
    if (isSummary(req)) return summary;
    if (isMoment(req)) return { content: "ok" };
    const last = turnMessages(req).at(-1);
    if (last === undefined)
      return { toolCalls: [{ name: "memory_log", arguments: '{"content":"breakout watch"}' }] };
    if (String(last.content).includes('"written":"journal/'))
      return {
        toolCalls: [{ name: "memory_recall", arguments: '{"query":"breakout","limit":5}' }],
      };
    return { content: "hold" };
  };
}

/** The requests of bar 1's decision, in order (summary requests apart). */
const firstDecision = (requests: readonly RecordedRequest[]) =>
  requests.filter((q) => !isMoment(q) && barOf(q) === 1);

describe("session summary by token percent, and by the model", async () => {
  const server = await startScriptedServer(trader({ content: "SUMMARY: logged breakout watch" }));
  afterAll(() => server.close());
  const run = (name: string, p: Partial<MemoryPolicy>, agent: Record<string, unknown> = {}) =>
    runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot: path.join(work, name),
      memoryPolicy: policy(p),
      to: "1999-11-05",
      agent: { cache: false, moments: [], ...agent },
    });

  it("past session_summary_token_percent of a known window, older results are stubbed", async () => {
    const from = server.requests.length;
    // 1% of 1000 tokens is 10: every call's prompt is past it.
    const r = await run(
      "percent",
      { session_summary_token_percent: 1, session_summary_keep_count: 1 },
      { contextWindow: 1000 },
    );
    expect(r.result.status).toBe("completed");
    const third = firstDecision(server.requests.slice(from))[2] as RecordedRequest;
    // [system, user, log call, log result, recall call, recall result]: keep 1 → index 3 stubbed.
    expect(chatBody(third).messages[3]?.content).toMatch(STUB);
    expect(chatBody(third).messages[5]?.content).toContain("breakout");
  });

  it("an unknown model without --context-window: the rule does not apply", async () => {
    const from = server.requests.length;
    const r = await run(
      "unknown",
      { session_summary_token_percent: 1, session_summary_keep_count: 1 },
      { model: "local-trader-7b" },
    );
    expect(r.result.status).toBe("completed");
    const third = firstDecision(server.requests.slice(from))[2] as RecordedRequest;
    expect(chatBody(third).messages[3]?.content).not.toMatch(STUB);
    // The default model's window (128000 tokens, 75%) is far above these prompts: no stub.
    const from2 = server.requests.length;
    await run("default", { session_summary_keep_count: 1 });
    const third2 = firstDecision(server.requests.slice(from2))[2] as RecordedRequest;
    expect(chatBody(third2).messages[3]?.content).not.toMatch(STUB);
  });

  let modelRun = "";
  it("mode model: the older messages are summarised by the model, through the same client", async () => {
    const from = server.requests.length;
    const r = await run("model", {
      session_summary_message_threshold: 4,
      session_summary_keep_count: 1,
      session_summary_mode: "model",
    });
    modelRun = r.dir;
    expect(r.result.status).toBe("completed");
    const requests = server.requests.slice(from);
    const summaries = requests.filter(isSummary);
    // One per decision: 5 bars (1999-11-01 … 11-05).
    expect(summaries).toHaveLength(5);
    // The third call's 6 messages > 4: the tail starts at the recall call (index 4, keep 1 moved
    // back to its call), so the log call and its result (2, 3) are summarised.
    const asked = chatBody(summaries[0] as RecordedRequest).messages[1]?.content ?? "";
    expect(asked.startsWith('assistant: memory_log({"content":"breakout watch"})\n\ntool: ')).toBe(
      true,
    );
    const third = firstDecision(requests)[2] as RecordedRequest;
    const sent = chatBody(third).messages;
    // The workspace state follows a compaction (one user message, at the end).
    expect(sent.map((m) => m.role)).toEqual([
      "system",
      "user",
      "user",
      "assistant",
      "tool",
      "user",
    ]);
    expect(String(sent[5]?.content)).toMatch(/^Current agent state:/);
    expect(sent[2]?.content).toBe(
      "[Summary of the earlier steps of this decision, by the memory policy]\nSUMMARY: logged breakout watch",
    );
    const line = readJsonl(path.join(r.dir, "decisions.jsonl")).find((d) => d.bar === 0);
    expect(line).toMatchObject({ modelSummaries: 1, summarisedToolResults: 1 });
    // The summary's tokens are the decision's: 4 calls × 10 prompt tokens (the server's default).
    expect(line?.tokens).toMatchObject({ prompt: 40 });
  });

  it("a replay of that run replays the summaries too, offline", async () => {
    const before = server.requests.length;
    const r = await runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot: path.join(work, "model"),
      memoryPolicy: policy({
        session_summary_message_threshold: 4,
        session_summary_keep_count: 1,
        session_summary_mode: "model",
      }),
      to: "1999-11-05",
      agent: { cache: false, moments: [], replay: modelRun },
    });
    expect(r.result.status).toBe("completed");
    expect(server.requests.length).toBe(before);
    const lines = (dir: string) =>
      readJsonl(path.join(dir, "decisions.jsonl")).map((d) => [
        d.bar,
        d.modelSummaries,
        d.contextHash,
      ]);
    expect(lines(r.dir)).toEqual(lines(modelRun));
  });

  it("a failed summary call falls back to the deterministic stubs", async () => {
    const failing = await startScriptedServer(trader({ status: 400, body: { error: "no" } }));
    try {
      const r = await runLlm({
        baseURL: failing.url,
        data: [spy],
        runsRoot: path.join(work, "fallback"),
        memoryPolicy: policy({
          session_summary_message_threshold: 4,
          session_summary_keep_count: 1,
          session_summary_mode: "model",
        }),
        to: "1999-11-01",
        agent: { cache: false, moments: [], maxRetries: 0 },
      });
      expect(r.result.status).toBe("completed");
      const third = firstDecision(failing.requests)[2] as RecordedRequest;
      expect(chatBody(third).messages[3]?.content).toMatch(STUB);
      const line = readJsonl(path.join(r.dir, "decisions.jsonl")).find((d) => d.bar === 0);
      expect(line).toMatchObject({ summarisedToolResults: 1 });
      expect(line?.modelSummaries).toBeUndefined();
    } finally {
      await failing.close();
    }
  });
});

describe("relevant history", async () => {
  // Each decision: log, log, recall, hold, by its count of calls so far.
  const calls = new Map<number, number>();
  const server = await startScriptedServer((req): Step => {
    if (isMoment(req)) return { content: "ok" };
    const n = calls.get(barOf(req)) ?? 0;
    calls.set(barOf(req), n + 1);
    if (n < 2) return { toolCalls: [{ name: "memory_log", arguments: `{"content":"note ${n}"}` }] };
    if (n === 2)
      return { toolCalls: [{ name: "memory_recall", arguments: '{"query":"note","limit":5}' }] };
    return { content: "hold" };
  });
  afterAll(() => server.close());

  it("with session_relevant_history_limit 1, a call sends one earlier round and the newest", async () => {
    const r = await runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot: path.join(work, "relevant"),
      // fallback 2: with or without a relevant round, exactly one earlier round is sent.
      memoryPolicy: policy({
        session_relevant_history_limit: 1,
        session_relevant_fallback_keep: 2,
      }),
      to: "1999-11-01",
      agent: { cache: false, moments: [] },
    });
    expect(r.result.status).toBe("completed");
    const sent = firstDecision(server.requests).map((q) => chatBody(q).messages.length);
    // Calls 1-3 hold 0, 1, 2 rounds (nothing to leave out); call 4 has 3: 2 + 1 + 1 rounds sent.
    expect(sent).toEqual([2, 4, 6, 6]);
    const line = readJsonl(path.join(r.dir, "decisions.jsonl")).find((d) => d.bar === 0);
    expect(line).toMatchObject({ historyRoundsOmitted: 1 });
  });
});
