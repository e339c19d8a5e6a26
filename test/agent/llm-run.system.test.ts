import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DATA, tempDir } from "../helpers/cli.js";
import {
  barOf,
  isMoment,
  readJsonl,
  runLlm,
  sliceCsv,
  systemOf,
  turnMessages,
  userOf,
} from "../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/**
 * A scripted trader: on bar 3 it reads the RSI, buys half its equity, journals and recalls; on bar 8
 * it closes the position. In memory moments it writes the position note after a fill, and a
 * journal line otherwise. Every other decision is a plain "hold".
 */
function trader(req: RecordedRequest): Step {
  const done = turnMessages(req).filter((m) => m.role === "tool").length;
  if (isMoment(req)) {
    if (done > 0) return { content: "Wrote my notes." };
    if (userOf(req).includes("An order of yours filled") && userOf(req).includes("long")) {
      return {
        toolCalls: [
          {
            name: "memory_note",
            arguments: JSON.stringify({
              key: "position_SPY",
              content: "Long SPY from the RSI dip; exit on RSI > 55.",
            }),
          },
        ],
      };
    }
    return {
      toolCalls: [
        { name: "memory_log", arguments: JSON.stringify({ content: "Day review: nothing new." }) },
      ],
    };
  }
  const bar = barOf(req);
  const script: Record<number, { name: string; arguments: string }[]> = {
    3: [
      {
        name: "get_indicator",
        arguments: JSON.stringify({ name: "rsi", symbol: "SPY", params: { period: 2 }, n: 3 }),
      },
      {
        name: "place_order",
        arguments: JSON.stringify({
          symbol: "SPY",
          side: "buy",
          fraction_of_equity: 0.5,
          reason: "RSI(2) dip",
        }),
      },
      { name: "memory_log", arguments: JSON.stringify({ content: "Bought SPY on an RSI dip." }) },
      { name: "memory_recall", arguments: JSON.stringify({ query: "RSI dip", limit: 3 }) },
    ],
    8: [
      {
        name: "place_order",
        arguments: JSON.stringify({ symbol: "SPY", side: "sell", target_weight: 0 }),
      },
    ],
  };
  const calls = script[bar];
  if (calls && done < calls.length)
    return {
      toolCalls: [calls[done] as { name: string; arguments: string }],
      usage: { prompt: 1000, completion: 20, cached: 800 },
    };
  return {
    content: calls ? "Done for this bar." : "Hold: no setup.",
    usage: { prompt: 900, completion: 10, cached: 800 },
  };
}

describe("an LLM trader end to end (scripted server, real client)", async () => {
  const server = await startScriptedServer((req) => trader(req));
  afterAll(() => server.close());
  const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 15, work, "SPY.csv");
  const { result, dir } = await runLlm({
    baseURL: server.url,
    data: [spy],
    runsRoot: path.join(work, "runs"),
  });
  const chat = server.requests.filter((r) => r.path.endsWith("/chat/completions"));
  const decisions = readJsonl(path.join(dir, "decisions.jsonl"));

  it("completes and writes every file", () => {
    expect(result.status, JSON.stringify(result.error)).toBe("completed");
    for (const f of [
      "config.json",
      "playbook.md",
      "decisions.jsonl",
      "transcript.jsonl",
      "equity.csv",
      "trades.csv",
      "orders.jsonl",
      "result.json",
    ]) {
      expect(fs.existsSync(path.join(dir, f)), f).toBe(true);
    }
    expect(result.strategy.kind).toBe("llm");
  });

  it("fills the agent's orders at the next open: buy placed at bar 3 fills at bar 4, the exit at bar 9", () => {
    const fills = readJsonl(path.join(dir, "orders.jsonl")).filter((o) => o.event === "fill");
    expect(fills.map((f) => [f.side, f.bar])).toEqual([
      ["buy", 3],
      ["sell", 8],
    ]); // master indexes are 0-based: bar 4 = index 3
    expect(result.trades.closed).toBe(1);
  });

  it("records every decision with its tool calls, rationale, tokens and the recall citations", () => {
    const bar3 = decisions.find((d) => d.type === "decision" && d.bar === 2) as Record<
      string,
      unknown
    >;
    const calls = bar3.toolCalls as { name: string; error: unknown }[];
    expect(calls.map((c) => c.name)).toEqual([
      "get_indicator",
      "place_order",
      "memory_log",
      "memory_recall",
    ]);
    expect(calls.every((c) => c.error === null)).toBe(true);
    expect(bar3.rationale).toBe("Done for this bar.");
    expect(bar3.tokens).toEqual({
      prompt: 4 * 1000 + 900,
      completion: 4 * 20 + 10,
      cached: 5 * 800,
    });
    expect(
      (bar3.recalls as { query: string; citations: { path: string }[] }[])[0]?.citations[0]?.path,
    ).toMatch(/^journal\//);
    expect(typeof bar3.contextHash).toBe("string");
    // One decision line per bar (15), each with the model's rationale.
    expect(decisions.filter((d) => d.type === "decision")).toHaveLength(15);
  });

  it("writes the journal and the position note through the memory tools", () => {
    const journal = fs.readdirSync(path.join(dir, "journal"));
    const text = journal
      .map((f) => fs.readFileSync(path.join(dir, "journal", f), "utf8"))
      .join("\n");
    expect(text).toContain("] Bought SPY on an RSI dip.");
    expect(fs.readFileSync(path.join(dir, "notes", "position_SPY.md"), "utf8")).toContain(
      "exit on RSI > 55",
    );
  });

  it("injects the position note only while the position is held", () => {
    for (const r of chat.filter((q) => !isMoment(q))) {
      // Bought at bar 4's open; the note is written in that bar's fill moment (after its decision);
      // the exit fills at bar 9's open. So decisions 5..8 see the note, and no other does.
      const held = barOf(r) >= 5 && barOf(r) <= 8;
      expect(userOf(r).includes("## position_SPY"), `bar ${barOf(r)}`).toBe(held);
    }
  });

  it("keeps the stable prefix byte-identical across consecutive decisions", () => {
    const firsts = chat.filter((r) => !isMoment(r) && turnMessages(r).length === 0);
    expect(firsts.length).toBe(15);
    const prefixes = new Set(firsts.map(systemOf));
    expect(prefixes.size).toBe(1);
  });

  it("accounts for every call in result.json and the transcript", () => {
    const llm = result.llm as {
      usage: { calls: { total: number; network: number } };
      agent: { decisions: number };
    };
    expect(llm.usage.calls.total).toBe(chat.length);
    expect(llm.usage.calls.network).toBe(chat.length);
    expect(readJsonl(path.join(dir, "transcript.jsonl"))).toHaveLength(chat.length);
    expect(llm.agent.decisions).toBe(15);
  });
});
