import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, DATA, tempDir } from "../helpers/cli.js";
import { barOf, isMoment, sliceCsv, turnMessages } from "../helpers/llm-run.js";
import {
  type RecordedRequest,
  type ScriptedServer,
  type Step,
  startScriptedServer,
} from "../helpers/scripted-openai-server.js";
import { captureUntilExit, TmuxPane } from "../helpers/tmux.js";

const work = tempDir();
let server: ScriptedServer | null = null;
const panes: TmuxPane[] = [];
afterAll(async () => {
  for (const pane of panes) pane.kill();
  await server?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

/** 1,000 prompt and 50 completion tokens a call: $0.00018 at gpt-4o-mini's $0.15 / $0.60 per 1M. */
const USAGE = { prompt: 1000, completion: 50, cached: 0 };

/** The 8th model request is refused once (429): the client retries it. */
const FAULT_AT = 7;

/** On bar 3: journal, recall, buy; otherwise hold. Every answer comes 150 ms late. */
function trader(req: RecordedRequest, index: number): Step {
  if (index === FAULT_AT) return { status: 429, headers: { "Retry-After": "0" } };
  const done = turnMessages(req).filter((m) => m.role === "tool").length;
  const calls = [
    { name: "memory_log", arguments: JSON.stringify({ content: "Dip bought on weak RSI." }) },
    { name: "memory_recall", arguments: JSON.stringify({ query: "dip RSI", limit: 2 }) },
    {
      name: "place_order",
      arguments: JSON.stringify({
        symbol: "SPY",
        side: "buy",
        fraction_of_equity: 0.5,
        reason: "dip",
      }),
    },
  ];
  const call = calls[done];
  const answer: Step = isMoment(req)
    ? { content: "Nothing to note.", usage: USAGE }
    : barOf(req) === 3 && call
      ? { toolCalls: [call], usage: USAGE }
      : {
          content: barOf(req) === 3 ? "Bought the dip; stop below the low." : "Hold.",
          usage: USAGE,
        };
  return { delayMs: 150, answer };
}

describe("the live view of an LLM run in a pseudo-terminal", () => {
  it("shows calls, tokens, cost and a retry mid-run, the last decision and its tool calls", async () => {
    server = await startScriptedServer(trader);
    const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 12, work, "SPY.csv");
    const runs = path.join(work, "runs");
    const pane = new TmuxPane(
      [
        process.execPath,
        BIN,
        "run",
        "--prompt",
        "Buy dips.",
        "--data",
        spy,
        "--base-url",
        server.url,
        "--model",
        "gpt-4o-mini",
        "--max-cost",
        "1",
        "--no-cache",
        "--runs-dir",
        runs,
      ],
      { cwd: work, env: { OPENAI_API_KEY: "sk-test" } },
    );
    panes.push(pane);
    const { frames, exitCode } = await captureUntilExit(pane);
    expect(exitCode, frames.at(-1)).toBe(0);
    const mid = frames.find((f) => /LLM calls [1-9]/.test(f) && !f.includes("· completed"));
    expect(mid, frames.join("\n----\n")).toBeDefined();
    expect(mid).toMatch(/\d+% 1999-11-\d\d · bar \d+\/12/);
    expect(mid).toMatch(/cost \$0\.\d{4} {2}budget left \$0\.99\d\d/);
    // The refused request and its retry are one call.
    const calls = server.requests.filter((r) => r.path.endsWith("/chat/completions")).length - 1;
    const retried = frames.find((f) => f.includes("retries 1") && !f.includes("· completed"));
    expect(retried, "a frame shows the retry before the run ends").toBeDefined();
    const last = frames.at(-1) as string;
    // Hand-computed: calls × $0.00018, tokens calls × 1,050.
    expect(last).toContain(
      `LLM calls ${calls}  tokens ${(calls * 1050).toLocaleString("en-US")}  cost $${(calls * 0.00018).toFixed(4)}`,
    );
    // Bar 3 (1999-11-03) is the decision that bought: its order and rationale, its tool calls.
    const bought = frames.find((f) => f.includes("Last decision 1999-11-03"));
    expect(bought).toContain("Last decision 1999-11-03: BUY 50% SPY market");
    expect(bought).toContain("“Bought the dip; stop below the low.”");
    expect(bought).toContain("Tools memory_log › memory_recall › place_order");
  });

  it("shows a slow call in flight with its age, and an unpriced model's cost as unknown", async () => {
    // The first decision's answer takes 2.5 s; every other comes at once.
    const slow = await startScriptedServer((req, index) => {
      const answer: Step = { content: "Hold.", usage: USAGE };
      return index === 0 && !isMoment(req) ? { delayMs: 2500, answer } : answer;
    });
    try {
      const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 3, work, "SPY3.csv");
      const pane = new TmuxPane(
        [
          process.execPath,
          BIN,
          "run",
          "--prompt",
          "Hold.",
          "--data",
          spy,
          "--base-url",
          slow.url,
          "--model",
          "a-local-model-without-a-price",
          "--no-cache",
          "--runs-dir",
          path.join(work, "runs-slow"),
        ],
        { cwd: work },
      );
      panes.push(pane);
      const { frames, exitCode } = await captureUntilExit(pane);
      expect(exitCode, frames.at(-1)).toBe(0);
      const waiting = frames.find((f) => /model call in flight [12] s/.test(f));
      expect(waiting, frames.join("\n----\n")).toBeDefined();
      const last = frames.at(-1) as string;
      expect(last).toMatch(/LLM calls \d+ {2}tokens [\d,]+ {2}cost unknown/);
      for (const f of frames) expect(f).not.toContain("$0.0000");
      // The call ended: its age is gone.
      expect(last).not.toContain("in flight");
    } finally {
      await slow.close();
    }
  });
});
