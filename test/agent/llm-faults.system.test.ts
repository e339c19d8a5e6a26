import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DATA, tempDir } from "../helpers/cli.js";
import { barOf, isMoment, readJsonl, runLlm, sliceCsv, turnMessages } from "../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const listTree = (dir: string): string[] =>
  fs.readdirSync(dir, { recursive: true, withFileTypes: false }).map(String).sort();

/**
 * One fault per decision bar; the run must complete and count each by type:
 * bar 1: 429 with Retry-After, then an answer; bar 2: 500, then an answer; bar 3: a hang on every
 * attempt (a timeout after retries: the decision fails, typed); bar 4: malformed tool-call JSON;
 * bar 5: an unknown tool; bar 6: note keys ../playbook and /etc/x; bar 7: endless tool calls.
 */
function faulty(): (req: RecordedRequest) => Step {
  const seen = new Map<string, number>();
  return (req) => {
    if (isMoment(req)) return { content: "nothing to write" };
    const bar = barOf(req);
    const inTurn = turnMessages(req).length;
    const key = `${bar}:${inTurn}`;
    const attempt = (seen.get(key) ?? 0) + 1;
    seen.set(key, attempt);
    const toolDone = turnMessages(req).some((m) => m.role === "tool");
    switch (bar) {
      case 1:
        return attempt === 1
          ? {
              status: 429,
              headers: { "Retry-After": "0" },
              body: { error: { message: "slow down" } },
            }
          : { content: "hold" };
      case 2:
        return attempt === 1
          ? { status: 500, body: { error: { message: "boom" } } }
          : { content: "hold" };
      case 3:
        return { hang: true };
      case 4:
        return toolDone
          ? { content: "fixed" }
          : { toolCalls: [{ name: "place_order", arguments: '{"symbol": "SPY", "side": ' }] };
      case 5:
        return toolDone
          ? { content: "ok" }
          : { toolCalls: [{ name: "buy_everything", arguments: "{}" }] };
      case 6:
        return toolDone
          ? { content: "tried" }
          : {
              toolCalls: [
                {
                  name: "memory_note",
                  arguments: JSON.stringify({ key: "../playbook", content: "pwned" }),
                },
                {
                  name: "memory_note",
                  arguments: JSON.stringify({ key: "/etc/x", content: "pwned" }),
                },
              ],
            };
      case 7:
        return { toolCalls: [{ name: "get_account", arguments: "{}" }] };
      default:
        return { content: "hold" };
    }
  };
}

describe("faults: the run completes and counts every fault by type", async () => {
  const server = await startScriptedServer(faulty());
  afterAll(() => server.close());
  const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 9, work, "SPY.csv");
  const runsRoot = path.join(work, "runs");
  const before = listTree(work).filter((p) => !p.startsWith("runs"));
  const { result, dir } = await runLlm({
    baseURL: server.url,
    data: [spy],
    runsRoot,
    agent: { timeoutMs: 300, maxRetries: 1, maxSteps: 4, moments: [], cache: false },
  });
  const decisions = readJsonl(path.join(dir, "decisions.jsonl")).filter(
    (d) => d.type === "decision",
  );
  const at = (bar: number) => decisions.find((d) => d.bar === bar - 1) as Record<string, unknown>;
  const llm = result.llm as {
    usage: {
      calls: { total: number; failed: number };
      errors: Record<string, number>;
      retries: Record<string, number>;
    };
    agent: { turnErrors: Record<string, number>; toolErrors: Record<string, number> };
  };

  it("completes", () => {
    expect(result.status, JSON.stringify(result.error)).toBe("completed");
    expect(decisions).toHaveLength(9);
  });

  it("retries a 429 (honouring Retry-After) and a 500, then succeeds", () => {
    expect(at(1).error).toBeNull();
    expect(at(1).rationale).toBe("hold");
    expect(at(2).error).toBeNull();
    const transcript = readJsonl(path.join(dir, "transcript.jsonl"));
    expect(transcript.filter((t) => (t.attempts as number) > 1).length).toBeGreaterThanOrEqual(2);
    // Counted by type because a retry overcame them; bar 3's timeouts were never overcome, so
    // they are one failure (below), not a retry.
    expect(llm.usage.retries).toEqual({ rate_limit: 1, server_error: 1 });
  });

  it("records a timeout as a typed failed decision, not a hold, and goes on", () => {
    expect((at(3).error as { type: string }).type).toBe("timeout");
    expect(llm.usage.errors.timeout).toBe(1);
    expect(llm.agent.turnErrors.timeout).toBe(1);
    expect(at(4)).toBeDefined();
  });

  it("returns malformed tool JSON and an unknown tool to the model as tool errors", () => {
    const e4 = (at(4).toolCalls as { error: { type: string } }[])[0]?.error;
    expect(e4?.type).toBe("malformed_json");
    expect(at(4).rationale).toBe("fixed");
    const e5 = (at(5).toolCalls as { error: { type: string; message: string } }[])[0]?.error;
    expect(e5?.type).toBe("unknown_tool");
    expect(llm.agent.toolErrors.malformed_json).toBe(1);
    expect(llm.agent.toolErrors.unknown_tool).toBe(1);
  });

  it("refuses note keys that would escape the run, writing nothing outside it", () => {
    const calls = at(6).toolCalls as { error: { type: string } | null }[];
    expect(calls.map((c) => c.error?.type)).toEqual(["invalid_arguments", "invalid_arguments"]);
    expect(fs.readFileSync(path.join(dir, "playbook.md"), "utf8")).not.toContain("pwned");
    expect(listTree(work).filter((p) => !p.startsWith("runs"))).toEqual(before);
    expect(fs.existsSync("/etc/x")).toBe(false);
    const everything = listTree(dir)
      .map((p) => path.join(dir, p))
      .filter((p) => fs.statSync(p).isFile());
    expect(
      everything.some(
        (f) =>
          !f.endsWith("transcript.jsonl") &&
          !f.endsWith("decisions.jsonl") &&
          // The report's decision timeline shows the refused calls, as decisions.jsonl records them.
          !f.endsWith("report.html") &&
          fs.readFileSync(f, "utf8").includes("pwned"),
      ),
    ).toBe(false);
  });

  it("bounds endless tool calls at --max-steps and records max_steps", () => {
    expect((at(7).error as { type: string }).type).toBe("max_steps");
    expect(at(7).calls).toBe(4);
    expect(llm.agent.turnErrors.max_steps).toBe(1);
    expect(at(8).error).toBeNull();
  });
});
