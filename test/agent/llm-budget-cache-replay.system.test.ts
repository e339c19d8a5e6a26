import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliRun, DATA, replayArgs, tempDir } from "../helpers/cli.js";
import { barOf, isMoment, readJsonl, runLlm, sliceCsv, turnMessages } from "../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** Alternates long and flat every 3 bars, journaling in moments: a run with trades and memory. */
function swing(req: RecordedRequest): Step {
  const toolDone = turnMessages(req).some((m) => m.role === "tool");
  const usage = { prompt: 500, completion: 50, cached: 0 };
  if (toolDone) return { content: "done", usage };
  if (isMoment(req))
    return { toolCalls: [{ name: "memory_log", arguments: '{"content":"moment noted"}' }], usage };
  const bar = barOf(req);
  if (bar % 6 === 1)
    return {
      toolCalls: [
        { name: "place_order", arguments: '{"symbol":"SPY","side":"buy","fraction_of_equity":1}' },
      ],
      usage,
    };
  if (bar % 6 === 4)
    return {
      toolCalls: [
        { name: "place_order", arguments: '{"symbol":"SPY","side":"sell","target_weight":0}' },
      ],
      usage,
    };
  return { content: "hold", usage };
}

const tradesOf = (dir: string) => fs.readFileSync(path.join(dir, "trades.csv"), "utf8");

describe("budget, cache and replay", async () => {
  const server = await startScriptedServer(swing);
  afterAll(() => server.close());
  const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 20, work, "SPY.csv");
  const chatCount = () =>
    server.requests.filter((r) => r.path.endsWith("/chat/completions")).length;

  it("--max-tokens stops the run cleanly with status budget_exhausted and a complete result.json", async () => {
    const { result, dir } = await runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot: path.join(work, "budget"),
      agent: { maxTokens: 3000, cache: false },
    });
    expect(result.status).toBe("budget_exhausted");
    expect(result.stopReason).toMatch(/token budget spent/);
    // Each call bills 550 tokens: the check before the 6th call sees 5 × 550 = 2750 < 3000 and
    // lets it run; before the 7th it sees 3300 >= 3000 and stops.
    const usage = (
      result.llm as { usage: { billedTokens: { prompt: number; completion: number } } }
    ).usage.billedTokens;
    expect(usage.prompt + usage.completion).toBe(6 * 550);
    const onDisk = JSON.parse(fs.readFileSync(path.join(dir, "result.json"), "utf8"));
    expect(onDisk.status).toBe("budget_exhausted");
    expect(onDisk.metrics.bars).toBeGreaterThan(0);
    expect(onDisk.metrics.bars).toBeLessThan(20);
    expect(fs.readFileSync(path.join(dir, "equity.csv"), "utf8").trim().split("\n")).toHaveLength(
      onDisk.metrics.bars + 1,
    );
  });

  it("an identical re-run is answered from the cache: zero requests reach the server", async () => {
    const runsRoot = path.join(work, "cached");
    const first = await runLlm({ baseURL: server.url, data: [spy], runsRoot });
    const before = chatCount();
    const second = await runLlm({ baseURL: server.url, data: [spy], runsRoot });
    expect(chatCount()).toBe(before);
    const usage = (
      second.result.llm as {
        usage: { calls: { total: number; cache: number; network: number }; cost: { usd: number } };
      }
    ).usage;
    expect(usage.calls.network).toBe(0);
    expect(usage.calls.cache).toBe(usage.calls.total);
    expect(usage.cost.usd).toBe(0);
    expect(tradesOf(second.dir)).toBe(tradesOf(first.dir));
    expect(second.result.metrics).toEqual(first.result.metrics);
  });

  it("--replay re-runs a recording with zero network calls and the same trades and metrics", async () => {
    const runsRoot = path.join(work, "replay");
    const rec = await cliRun(
      [
        "run",
        "--prompt",
        "swing trade",
        "--data",
        spy,
        "--base-url",
        server.url,
        "--model",
        "gpt-4o-mini",
        "--no-cache",
        "--runs-dir",
        runsRoot,
        "--json",
      ],
      work,
    );
    expect(rec.status, rec.stderr).toBe(0);
    const original = JSON.parse(rec.stdout);
    const before = chatCount();
    const rep = await cliRun(replayArgs(original.id, runsRoot, "--json"), work);
    expect(rep.status, rep.stderr).toBe(0);
    const replayed = JSON.parse(rep.stdout);
    expect(chatCount()).toBe(before);
    expect(replayed.llm.usage.calls.replay).toBe(original.llm.usage.calls.total);
    expect(replayed.llm.usage.calls.network).toBe(0);
    expect(replayed.metrics).toEqual(original.metrics);
    expect(tradesOf(path.join(runsRoot, replayed.id))).toBe(
      tradesOf(path.join(runsRoot, original.id)),
    );
    expect(readJsonl(path.join(runsRoot, replayed.id, "orders.jsonl"))).toEqual(
      readJsonl(path.join(runsRoot, original.id, "orders.jsonl")),
    );
  });

  it("a replay whose requests diverge from the recording fails clearly", async () => {
    const runsRoot = path.join(work, "replay");
    const [recorded] = fs.readdirSync(runsRoot).sort();
    const config = JSON.parse(
      fs.readFileSync(path.join(runsRoot, recorded as string, "config.json"), "utf8"),
    );
    config.agent.prompt = "a different prompt";
    fs.writeFileSync(
      path.join(runsRoot, recorded as string, "config.json"),
      JSON.stringify(config),
    );
    const rep = await cliRun(replayArgs(recorded as string, runsRoot, "--json"), work);
    expect(rep.status).toBe(1);
    const result = JSON.parse(rep.stdout);
    expect(result.status).toBe("failed");
    expect(result.error.message).toMatch(/diverge/i);
    expect(result.error.message).toMatch(/call 1\b|seq 1\b|#1\b/);
  });
});
