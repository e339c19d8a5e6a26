import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/runner/run-events.js";
import { DATA, tempDir } from "../helpers/cli.js";
import { barOf, isMoment, runLlm, sliceCsv, turnMessages } from "../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** Bar 1: a 429 (Retry-After 0), then "hold" (100 prompt, 20 completion tokens). Bar 2: an empty
 * reply (a failed decision, empty_reply). Bar 3: "hold". */
function script(): (req: RecordedRequest) => Step {
  const seen = new Map<string, number>();
  return (req) => {
    if (isMoment(req)) return { content: "nothing" };
    const bar = barOf(req);
    const key = `${bar}:${turnMessages(req).length}`;
    const attempt = (seen.get(key) ?? 0) + 1;
    seen.set(key, attempt);
    if (bar === 1 && attempt === 1) {
      return { status: 429, headers: { "Retry-After": "0" }, body: { error: { message: "slow" } } };
    }
    if (bar === 2) return { content: "" };
    return { content: "hold", usage: { prompt: 100, completion: 20 } };
  };
}

describe("LLM run events: decisions, model calls and retries as they happen", async () => {
  const server = await startScriptedServer(script());
  afterAll(() => server.close());
  const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 3, work, "SPY.csv");
  const events: RunEvent[] = [];
  await runLlm({
    baseURL: server.url,
    data: [spy],
    runsRoot: path.join(work, "runs"),
    agent: { moments: [], cache: false, maxFailedDecisions: 5 },
    onEvent: (e) => events.push(e),
  });
  const agentKinds = new Set([
    "decision_started",
    "decision_finished",
    "llm_call",
    "retry",
    "progress",
  ]);
  const seq = events.filter((e) => agentKinds.has(e.type));

  it("orders them: started, retry, call, finished, then the bar's progress", () => {
    expect(seq.map((e) => e.type)).toEqual([
      "decision_started",
      "retry",
      "llm_call",
      "decision_finished",
      "progress",
      "decision_started",
      "llm_call",
      "decision_finished",
      "progress",
      "decision_started",
      "llm_call",
      "decision_finished",
      "progress",
    ]);
  });

  it("a retry names its error and attempt; a call its tokens, source and cost", () => {
    expect(seq[1]).toMatchObject({ type: "retry", error: "rate_limit", attempt: 1, delayMs: 0 });
    expect(seq[2]).toMatchObject({
      type: "llm_call",
      model: "gpt-4o-mini",
      source: "network",
      tokens: { prompt: 100, completion: 20, cached: 0 },
      attempts: 2,
      error: null,
    });
    // gpt-4o-mini: $0.15 per 1M input, $0.60 per 1M output.
    const cost = (seq[2] as { costUsd: number }).costUsd;
    expect(cost).toBeCloseTo((100 * 0.15 + 20 * 0.6) / 1e6, 15);
  });

  it("a decision reports its rationale; a failed one its typed error the moment it ends", () => {
    expect(seq[3]).toMatchObject({
      type: "decision_finished",
      kind: "decision",
      rationale: "hold",
      calls: 1,
      error: null,
      failed: false,
    });
    expect(seq[7]).toMatchObject({
      type: "decision_finished",
      error: { type: "empty_reply" },
      failed: true,
    });
    // At its own bar, before that bar's progress.
    expect((seq[7] as { bar: number }).bar).toBe((seq[8] as { bar: number }).bar);
  });
});
