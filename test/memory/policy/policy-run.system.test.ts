import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  DEFAULT_MEMORY_POLICY,
  type MemoryPolicy,
} from "../../../src/memory/policy/memory-policy.js";
import { diffRuns } from "../../../src/report/diff-runs.js";
import { DATA, tempDir } from "../../helpers/cli.js";
import {
  barOf,
  chatBody,
  isMoment,
  readJsonl,
  runLlm,
  sliceCsv,
  toolNames,
  turnMessages,
  userOf,
} from "../../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

// SPY 1999-11-01 … 1999-12-13: November's month end is at bar 21 (1999-11-30).
const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 30, work, "SPY.csv");

const policy = (p: Partial<MemoryPolicy>) => ({
  policy: { ...DEFAULT_MEMORY_POLICY, ...p },
  config: p,
  configFile: null,
  overrides: {},
  overridesFile: null,
});

/**
 * Each decision: log "breakout watch", then recall "breakout" (limit 5), then hold. At the month
 * end with evolution on: first a bad proposal, then a good one.
 */
function trader(req: RecordedRequest): Step {
  const done = turnMessages(req).filter((m) => m.role === "tool").length;
  if (isMoment(req)) {
    if (
      !toolNames(req).includes("propose_policy") ||
      !userOf(req).includes("review your memory policy")
    ) {
      return { content: "nothing to add" };
    }
    if (done === 0)
      return {
        toolCalls: [{ name: "propose_policy", arguments: '{"retrieve_limit":0,"reason":"none"}' }],
      };
    if (done === 1)
      return {
        toolCalls: [
          {
            name: "propose_policy",
            arguments: '{"retrieve_limit":1,"reason":"focus on the best match"}',
          },
        ],
      };
    return { content: "proposed" };
  }
  if (done === 0)
    return { toolCalls: [{ name: "memory_log", arguments: '{"content":"breakout watch"}' }] };
  if (done === 1)
    return { toolCalls: [{ name: "memory_recall", arguments: '{"query":"breakout","limit":5}' }] };
  return { content: "hold" };
}

/** Citations returned by each decision's memory_recall, by bar. */
function recallCounts(dir: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const d of readJsonl(path.join(dir, "decisions.jsonl"))) {
    if (d.type !== "decision") continue;
    const call = (d.toolCalls as { name: string; result: unknown }[]).find(
      (c) => c.name === "memory_recall",
    );
    if (call) out.set(d.bar as number, (call.result as unknown[]).length);
  }
  return out;
}

describe("the memory policy changes behaviour", async () => {
  const server = await startScriptedServer(trader);
  afterAll(() => server.close());
  const run = (name: string, memoryPolicy: ReturnType<typeof policy>) =>
    runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot: path.join(work, name),
      memoryPolicy,
      // Every request reaches the server (the summary test reads them).
      agent: { cache: false },
    });

  let plain = "";
  it("defaults: recall returns up to 5 journal days", async () => {
    const r = await run("plain", policy({}));
    plain = r.dir;
    const counts = recallCounts(r.dir);
    // Bar index 0 is the first bar; by index 4 five days of journal exist, and stay 5.
    expect([...counts.values()].slice(0, 7)).toEqual([1, 2, 3, 4, 5, 5, 5]);
  });

  it("retrieve_limit caps recall and recent_days sets the journal window", async () => {
    const capped = recallCounts((await run("capped", policy({ retrieve_limit: 2 }))).dir);
    expect([...capped.values()].slice(0, 7)).toEqual([1, 2, 2, 2, 2, 2, 2]);
    const recent = recallCounts((await run("recent", policy({ recent_days: 3 }))).dir);
    expect([...recent.values()].slice(0, 7)).toEqual([1, 2, 3, 3, 3, 3, 3]);
  });

  it("evolution: a month-end proposal is refused when bad, applied from the next month when good, snapshotted and diffed", async () => {
    const r = await run("evolve", policy({ evolution_enabled: true }));
    expect(r.result.status).toBe("completed");
    const lines = readJsonl(path.join(r.dir, "decisions.jsonl"));
    const monthEnd = lines.find(
      (d) => d.type === "moment" && (d.toolCalls as unknown[]).length > 0,
    );
    const calls = monthEnd?.toolCalls as { name: string; error: { type: string } | null }[];
    expect(calls.map((c) => [c.name, c.error?.type ?? null])).toEqual([
      ["propose_policy", "invalid_arguments"],
      ["propose_policy", null],
    ]);
    const snapshot = JSON.parse(
      fs.readFileSync(path.join(r.dir, "policy_snapshots", "001_1999-11.json"), "utf8"),
    );
    expect(snapshot).toMatchObject({
      month: "1999-11",
      effectiveFrom: "1999-12",
      reason: "focus on the best match",
      changes: [{ key: "retrieve_limit", before: 20, after: 1 }],
    });
    expect(JSON.parse(fs.readFileSync(path.join(r.dir, "policy_overrides.json"), "utf8"))).toEqual({
      retrieve_limit: 1,
    });
    // November (the month end's own decision included) is unchanged; December's recalls get 1.
    const counts = recallCounts(r.dir);
    const monthEndBar = monthEnd?.bar as number;
    for (const [bar, n] of counts)
      expect(n, `bar ${bar}`).toBe(bar <= monthEndBar ? Math.min(bar + 1, 5) : 1);
    expect(r.result.memory).toMatchObject({
      policyProposalsAccepted: 1,
      policyProposalsRefused: 0,
    });
    const d = diffRuns(plain, r.dir);
    expect(d.policy).toEqual({
      a: [],
      b: [
        {
          month: "1999-11",
          effectiveFrom: "1999-12",
          key: "retrieve_limit",
          before: 20,
          after: 1,
          reason: "focus on the best match",
        },
      ],
    });
  });

  it("the session summary replaces older tool results past the threshold", async () => {
    const before = server.requests.length;
    const r = await run(
      "summary",
      policy({ session_summary_message_threshold: 4, session_summary_keep_count: 1 }),
    );
    expect(r.result.status).toBe("completed");
    // The first decision's third call: [system, user, log call, its result, recall call, its result]:
    // 6 > 4 messages, so the log's result (index 3) is a stub and the recall's (index 5) is whole.
    const third = server.requests
      .slice(before)
      .filter((q) => !isMoment(q) && barOf(q) === 1)[2] as RecordedRequest;
    const messages = chatBody(third).messages;
    expect(messages[3]?.content).toMatch(
      /^\[older tool result summarised by the memory policy: \d+ characters omitted\]$/,
    );
    expect(messages[5]?.content).toContain("breakout");
  });
});
