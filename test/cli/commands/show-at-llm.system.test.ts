import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ShowAtOutput, showAtOutputSchema } from "../../../src/rundir/schemas.js";
import { cliRun, DATA, tempDir } from "../../helpers/cli.js";
import { barOf, isMoment, sliceCsv, turnMessages } from "../../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../../helpers/scripted-openai-server.js";
import { jsonLines, reportCli } from "./report-cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** On bar 3: journal a line, recall it, buy; every other decision holds; moments say "ok". */
function trader(req: RecordedRequest): Step {
  const done = turnMessages(req).filter((m) => m.role === "tool").length;
  if (isMoment(req)) return { content: "Nothing to note." };
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
  if (barOf(req) === 3 && call) return { toolCalls: [call] };
  return { content: barOf(req) === 3 ? "Bought the dip; stop below the low." : "Hold." };
}

describe("show --at on an LLM run (real CLI against a scripted OpenAI-compatible server)", () => {
  const runs = path.join(work, "runs");
  let dir = "";
  let time = "";
  let at: ShowAtOutput;
  let server: Awaited<ReturnType<typeof startScriptedServer>>;
  beforeAll(async () => {
    server = await startScriptedServer((req) => trader(req));
    const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 8, work, "SPY.csv");
    const env = { ...process.env, OPENAI_API_KEY: "sk-test" };
    const args = ["run", "--prompt", "Buy dips.", "--data", spy, "--base-url", server.url];
    const r = await cliRun([...args, "--runs-dir", runs, "--no-cache", "-q"], work, env);
    expect(r.status, r.stderr).toBe(0);
    dir = path.join(runs, fs.readdirSync(runs)[0] as string);
    const line = jsonLines(path.join(dir, "decisions.jsonl")).find(
      (l) => l.type === "decision" && (l.orders as unknown[]).length > 0,
    );
    time = line?.time as string;
    const out = reportCli(["show", dir, "--at", time, "--json"], work);
    expect(out.status, out.stderr).toBe(0);
    at = showAtOutputSchema.parse(JSON.parse(out.stdout));
  });
  afterAll(() => server?.close());

  it("returns the decision with its tool calls, orders, rationale and recall citations", () => {
    const d = at.decisions.find((x) => x.type === "decision");
    expect(d?.toolCalls.map((c) => c.name)).toEqual(["memory_log", "memory_recall", "place_order"]);
    expect(d?.orders.map((o) => [o.symbol, o.side])).toEqual([["SPY", "buy"]]);
    expect(d?.rationale).toBe("Bought the dip; stop below the low.");
    expect(d?.recalls[0]?.query).toBe("dip RSI");
    expect(d?.recalls[0]?.citations[0]?.path).toMatch(/^journal\//);
    expect(d?.contextHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("finds the exact messages the model was sent in transcript.jsonl", () => {
    const d = at.decisions.find((x) => x.type === "decision");
    const sent = server.requests.find(
      (r) => r.path.endsWith("/chat/completions") && !isMoment(r) && barOf(r) === 3,
    );
    const messages =
      (sent?.body as { messages: { role: string; content: string }[] } | undefined)?.messages ?? [];
    expect(messages.length).toBeGreaterThan(1);
    expect(d?.context?.messages).toEqual(
      messages.slice(0, 2).map(({ role, content }) => ({ role, content })),
    );
    expect(d?.context?.requestHash).toBe(d?.requestHashes[0]);
  });

  it("also shows the memory moment of that bar", () => {
    expect(at.decisions.map((d) => d.type)).toContain("moment");
    expect(at.decisions.every((d) => d.time === time)).toBe(true);
  });

  it("prints the system message abbreviated, and whole with --full", () => {
    const short = reportCli(["show", dir, "--at", time], work).stdout;
    const full = reportCli(["show", dir, "--at", time, "--full"], work).stdout;
    const system = at.decisions[0]?.context?.messages[0]?.content ?? "";
    expect(system.split("\n").length).toBeGreaterThan(8);
    expect(short).toContain("more lines (--full shows all)");
    expect(short).not.toContain(system);
    expect(full).toContain(system);
    expect(short).toContain("3. place_order(");
    expect(short).toMatch(/journal\/[\d-]+\.md:\d+-\d+ {2}score/);
  });
});
