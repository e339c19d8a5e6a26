import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveLayeredParams } from "../../../src/memory/layered/layered-config.js";
import { cli, DATA, replayArgs, tempDir } from "../../helpers/cli.js";
import {
  barOf,
  isMoment,
  readJsonl,
  runLlm,
  sliceCsv,
  systemOf,
  toolNames,
  turnMessages,
  userOf,
} from "../../helpers/llm-run.js";
import {
  type RecordedRequest,
  type ScriptedServer,
  type Step,
  startScriptedServer,
} from "../../helpers/scripted-openai-server.js";

const work = tempDir();
const runsRoot = path.join(work, "runs");
let server: ScriptedServer;
let dir = "";
let id = "";
const requests: RecordedRequest[] = [];

const FIRST = "GOOG IPO gapped and held above 100";
// Token cosine with FIRST: 5 / sqrt(5 × 7) = 0.845, above the 0.7 recall threshold.
const QUERY = "GOOG IPO gapped above 100";

/** Bar 1 stores (short, importance 70), bar 2 stores with neither (scored), bar 3 recalls; a due
 * reflection and the run_end moment write the same reflection; other turns answer without tools. */
function script(req: RecordedRequest): Step {
  requests.push(req);
  if (turnMessages(req).some((m) => m.role === "tool")) return { content: "done" };
  const call = (name: string, args: unknown): Step => ({
    toolCalls: [{ name, arguments: JSON.stringify(args) }],
  });
  if (isMoment(req)) {
    const text = userOf(req);
    return text.includes("The backtest ends at this bar") || text.includes("A reflection is due")
      ? call("memory_reflect", { content: "Gaps on news fade within a week." })
      : { content: "nothing to add" };
  }
  if (barOf(req) === 1)
    return call("memory_store", { content: FIRST, layer: "short", importance: 70 });
  if (barOf(req) === 2) return call("memory_store", { content: "RSI oversold bounce failed" });
  if (barOf(req) === 3) return call("memory_recall", { query: QUERY });
  return { content: "hold" };
}

const utc = (d: string) => Date.parse(`${d}T00:00:00Z`);

beforeAll(async () => {
  server = await startScriptedServer(script);
  const data = sliceCsv(path.join(DATA, "GOOG.csv"), 10, work);
  const run = await runLlm({
    baseURL: server.url,
    data: [data],
    runsRoot,
    agent: { cache: false },
    // A reflection every 5 days instead of 30, so this 10-bar run has two.
    memory: { system: "layered", config: resolveLayeredParams({ reflectionEveryDays: 5 }) },
  });
  dir = run.dir;
  id = run.result.id;
  expect(run.result.status).toBe("completed");
});

afterAll(async () => {
  await server.close();
  fs.rmSync(work, { recursive: true, force: true });
});

describe("--memory layered, end to end with the scripted server", () => {
  it("offers the layered tools and rules instead of the files ones", () => {
    const decision = requests.find((r) => !isMoment(r)) as RecordedRequest;
    expect(toolNames(decision).slice(-3)).toEqual([
      "memory_store",
      "memory_reflect",
      "memory_recall",
    ]);
    expect(systemOf(decision)).toContain("memory_store(content, layer?, importance?)");
    expect(systemOf(decision)).not.toContain("memory_log");
    expect(systemOf(decision)).not.toContain("# Playbook");
    const moment = requests.find((r) => isMoment(r)) as RecordedRequest;
    expect(toolNames(moment)).toEqual(["memory_store", "memory_reflect", "memory_recall"]);
  });

  it("logs each store and day end; the store of bar 1 is promoted to mid at its day end", () => {
    const log = readJsonl(path.join(dir, "layered.jsonl"));
    expect(log[0]).toEqual({
      seq: 1,
      op: "store",
      id: 1,
      time: utc("2004-08-19"),
      bar: 0,
      layer: "short",
      importance: 70,
      content: FIRST,
    });
    // Same day, no decay: 70 > 55 → mid.
    expect(log[1]).toMatchObject({
      seq: 2,
      op: "day_end",
      bar: 0,
      moves: [{ id: 1, from: "short", to: "mid", why: "promote" }],
      reflection: null,
    });
    // No layer and no importance: scored at bar 1 (2004-08-20). Move 108.31 / 100.34 - 1 = 7.9%
    // > 5%: market impact 1 (30); novelty 1 (no word in common with FIRST: 25); relevance 0 (no
    // symbol named); source 0.6 (no trade at this bar: 9); volume 11,428,600 / 22,351,900 = 0.51 of
    // the mean before it: urgency 0. 30 + 25 + 9 = 64 → mid.
    expect(log[2]).toMatchObject({
      seq: 3,
      op: "store",
      id: 2,
      layer: "mid",
      importance: 64,
      factors: { marketImpact: 1, novelty: 1, relevance: 0, source: 0.6, urgency: 0 },
    });
    expect(log.filter((l) => l.op === "day_end")).toHaveLength(10);
    // The first event is on day 0 (2004-08-19); 2004-08-25 is day 6 > 5: a reflection is due
    // (bar 4), the clock restarts, and 2004-08-31 (day 12, bar 8) is the next.
    const due = log.filter((l) => l.op === "day_end" && l.reflection !== null);
    expect(due.map((l) => [l.bar, l.reflection])).toEqual([
      [4, "days"],
      [8, "days"],
    ]);
  });

  it("asks for a due reflection in that bar's memory turn, and stores the same reflection once", () => {
    const asked = requests.filter(
      (r) =>
        isMoment(r) && turnMessages(r).length === 0 && userOf(r).includes("A reflection is due"),
    );
    expect(asked.map(barOf)).toEqual([5, 9]);
    const log = readJsonl(path.join(dir, "layered.jsonl"));
    expect(log.filter((l) => l.op === "duplicate").map((l) => l.of)).toEqual([3, 3]);
  });

  it("shows the best memories of each layer in the next decision's context", () => {
    const bar2 = requests.find((r) => !isMoment(r) && barOf(r) === 2) as RecordedRequest;
    expect(userOf(bar2)).toContain(
      `# Memory (layered: best of each layer)\n\n- [mid #1, 2004-08-19, importance 70.0, recency 1.00] ${FIRST}`,
    );
  });

  it("records the recall with the log line it searched, and the stats in result.json", () => {
    const decisions = readJsonl(path.join(dir, "decisions.jsonl"));
    const bar3 = decisions.find((d) => d.bar === 2 && d.type === "decision") as {
      recalls: { seq: number; citations: { path: string; source: string; startLine: number }[] }[];
    };
    expect(bar3.recalls[0]?.seq).toBe(4);
    expect(bar3.recalls[0]?.citations.map((c) => [c.path, c.source, c.startLine])).toEqual([
      ["layered.jsonl#1", "mid", 1],
    ]);
    const result = JSON.parse(fs.readFileSync(path.join(dir, "result.json"), "utf8"));
    expect(result.memorySystem).toBe("layered");
    expect(result.memory).toMatchObject({
      stores: 3,
      reflections: 1,
      reflectionDuplicates: 2,
      reflectionTriggers: 2,
      promotions: 1,
      recalls: 1,
      recallHits: 1,
      dayEnds: 10,
      reflection: 1,
    });
  });

  it("recall --as-of answers exactly as the recorded recall, and from the bar's start without one", () => {
    const asOf = cli(
      ["recall", id, QUERY, "--as-of", "2004-08-23", "--runs-dir", runsRoot, "--json"],
      work,
    );
    expect(asOf.status, asOf.stderr).toBe(0);
    const out = JSON.parse(asOf.stdout);
    const decisions = readJsonl(path.join(dir, "decisions.jsonl"));
    const recorded = (
      decisions.find((d) => d.bar === 2 && d.type === "decision") as {
        recalls: { citations: unknown[] }[];
      }
    ).recalls[0];
    expect(out).toMatchObject({ seq: 4, mode: "layered" });
    expect(out.citations).toEqual(recorded?.citations);
    // At the start of bar 1 nothing was stored yet.
    const before = cli(
      ["recall", id, QUERY, "--as-of", "2004-08-19", "--runs-dir", runsRoot, "--json"],
      work,
    );
    expect(JSON.parse(before.stdout)).toMatchObject({ seq: 0, citations: [] });
  });

  it("--replay reproduces the layered log and statistics exactly, with no network call", () => {
    const before = requests.length;
    const rep = cli(replayArgs(id, runsRoot, "--json"), work);
    expect(rep.status, rep.stderr).toBe(0);
    expect(requests.length).toBe(before);
    const replayed = JSON.parse(rep.stdout);
    expect(replayed.memorySystem).toBe("layered");
    const original = JSON.parse(fs.readFileSync(path.join(dir, "result.json"), "utf8"));
    expect(replayed.memory).toEqual(original.memory);
    expect(fs.readFileSync(path.join(runsRoot, replayed.id, "layered.jsonl"), "utf8")).toBe(
      fs.readFileSync(path.join(dir, "layered.jsonl"), "utf8"),
    );
  });
});
