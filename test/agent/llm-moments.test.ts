import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseTimestamp } from "../../src/data/parse-timestamp.js";
import { dayKey, isoWeekKey, monthKey } from "../../src/engine/calendar.js";
import { DATA, tempDir } from "../helpers/cli.js";
import { barOf, isMoment, readJsonl, runLlm, sliceCsv, turnMessages } from "../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** Buys at bar 2 and sells at bar 6; answers every moment with one journal line. */
function simpleTrader(req: RecordedRequest): Step {
  const done = turnMessages(req).some((m) => m.role === "tool");
  if (done) return { content: "ok" };
  if (isMoment(req))
    return { toolCalls: [{ name: "memory_log", arguments: '{"content":"noted"}' }] };
  const symbol =
    /Symbols: (\w+)/.exec(
      String((req.body as { messages: { content: string }[] }).messages[0]?.content),
    )?.[1] ?? "X";
  if (barOf(req) === 2)
    return {
      toolCalls: [
        { name: "place_order", arguments: JSON.stringify({ symbol, side: "buy", quantity: 1 }) },
      ],
    };
  if (barOf(req) === 6)
    return {
      toolCalls: [
        { name: "place_order", arguments: JSON.stringify({ symbol, side: "sell", quantity: 1 }) },
      ],
    };
  return { content: "hold" };
}

/** Expected moments per master index, computed from the file's timestamps independently. */
function expectedMoments(file: string, timeColumn: number, fills: Map<number, string[]>) {
  const times = fs
    .readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((l) => parseTimestamp(l.split(",")[timeColumn] as string));
  const out = new Map<number, string[]>();
  times.forEach((t, i) => {
    const next = times[i + 1];
    const kinds = [...(fills.get(i) ?? [])];
    if (next === undefined || dayKey(next) !== dayKey(t)) kinds.push("eod");
    if (next === undefined || isoWeekKey(next) !== isoWeekKey(t)) kinds.push("week");
    if (next === undefined || monthKey(next) !== monthKey(t)) kinds.push("month");
    if (kinds.length) out.set(i, kinds);
  });
  return out;
}

function momentsByBar(dir: string) {
  const out = new Map<number, string[]>();
  for (const d of readJsonl(path.join(dir, "decisions.jsonl"))) {
    if (d.type === "moment") out.set(d.bar as number, d.moments as string[]);
  }
  return out;
}

describe("memory moments", async () => {
  const server = await startScriptedServer(simpleTrader);
  afterAll(() => server.close());

  it("fire on daily data at each day, ISO week and month end, and at the fill and close bars", async () => {
    // SPY from 1999-11-01: 25 sessions span several ISO weeks and the November → December month end.
    const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 25, work, "SPY.csv");
    const { dir, result } = await runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot: path.join(work, "daily"),
    });
    expect(result.status).toBe("completed");
    // The buy placed at bar 2 (index 1) fills at index 2, the sell placed at bar 6 fills at index 6.
    const fills = new Map([
      [2, ["fill"]],
      [6, ["fill", "close"]],
    ]);
    const expected = expectedMoments(spy, 1, fills);
    const actual = momentsByBar(dir);
    expect([...actual.keys()].sort((a, b) => a - b)).toEqual(
      [...expected.keys()].sort((a, b) => a - b),
    );
    for (const [bar, kinds] of expected)
      expect(actual.get(bar)?.slice().sort(), `bar ${bar}`).toEqual(kinds.slice().sort());
    // Daily data: every bar ends a day.
    expect([...actual.values()].every((k) => k.includes("eod"))).toBe(true);
    expect([...actual.values()].filter((k) => k.includes("month"))).toHaveLength(2); // Nov end, and the last bar
  });

  it("fire on hourly data at the last bar of each day only", async () => {
    const fx = sliceCsv(path.join(DATA, "EURUSD.csv"), 40, work, "EURUSD.csv");
    const { dir } = await runLlm({
      baseURL: server.url,
      data: [fx],
      runsRoot: path.join(work, "hourly"),
      broker: { fractional: true },
    });
    const expected = expectedMoments(
      fx,
      0,
      new Map([
        [2, ["fill"]],
        [6, ["fill", "close"]],
      ]),
    );
    const actual = momentsByBar(dir);
    expect([...actual.keys()].sort((a, b) => a - b)).toEqual(
      [...expected.keys()].sort((a, b) => a - b),
    );
    const eodBars = [...actual.entries()].filter(([, k]) => k.includes("eod")).map(([b]) => b);
    expect(eodBars.length).toBeGreaterThan(0);
    expect(eodBars.length).toBeLessThan(10); // 40 hourly bars span about two days, not 40
  });

  it("can be narrowed (--moments fill) or turned off (--no-moments)", async () => {
    const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 12, work, "SPY12.csv");
    const only = await runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot: path.join(work, "fill-only"),
      agent: { moments: ["fill"] },
    });
    expect([...momentsByBar(only.dir).entries()]).toEqual([
      [2, ["fill"]],
      [6, ["fill"]],
    ]);
    const none = await runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot: path.join(work, "none"),
      agent: { moments: [] },
    });
    expect(momentsByBar(none.dir).size).toBe(0);
    expect(
      readJsonl(path.join(none.dir, "decisions.jsonl")).filter((d) => d.type === "decision"),
    ).toHaveLength(12);
  });

  it("--every 3 decides on every third bar only", async () => {
    const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 12, work, "SPY12b.csv");
    const { dir, result } = await runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot: path.join(work, "every"),
      agent: { every: 3, moments: [] },
    });
    const bars = readJsonl(path.join(dir, "decisions.jsonl"))
      .filter((d) => d.type === "decision")
      .map((d) => d.bar);
    expect(bars).toEqual([0, 3, 6, 9]);
    expect((result.llm as { agent: { skippedBars: number } }).agent.skippedBars).toBe(8);
  });
});
