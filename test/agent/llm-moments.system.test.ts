import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MOMENT_PROMPTS } from "../../src/agent/prompts.js";
import { parseTimestamp } from "../../src/data/parse-timestamp.js";
import { dayKey, isoWeekKey, monthKey } from "../../src/engine/calendar.js";
import { DATA, tempDir } from "../helpers/cli.js";
import {
  barOf,
  isMoment,
  readJsonl,
  runLlm,
  sliceCsv,
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
    if (next === undefined) kinds.push(...lastBarMoments(times, t));
    else {
      if (dayKey(next) !== dayKey(t)) kinds.push("eod");
      if (isoWeekKey(next) !== isoWeekKey(t)) kinds.push("week");
      if (monthKey(next) !== monthKey(t)) kinds.push("month");
    }
    if (kinds.length) out.set(i, kinds);
  });
  return out;
}

/** The last bar: its day ends; its week or month only if no trading day (Monday to Friday, and
 * any weekday the data has bars on) is left in it; and run_end. */
function lastBarMoments(times: number[], t: number): string[] {
  const trading = new Set([1, 2, 3, 4, 5, ...times.map((x) => new Date(x).getUTCDay())]);
  const later = (samePeriod: (d: Date) => boolean) => {
    for (let k = 1; k <= 31; k++) {
      const d = new Date(t + k * 86_400_000);
      if (!samePeriod(d)) return false;
      if (trading.has(d.getUTCDay())) return true;
    }
    return false;
  };
  const kinds = ["eod"];
  if (!later((d) => isoWeekKey(d.getTime()) === isoWeekKey(t))) kinds.push("week");
  if (!later((d) => monthKey(d.getTime()) === monthKey(t))) kinds.push("month");
  return [...kinds, "run_end"];
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
    // The November → December month end only: the last bar, Monday 1999-12-06, ends no month.
    expect([...actual.values()].filter((k) => k.includes("month"))).toHaveLength(1);
    expect(actual.get(24)).toEqual(["eod", "run_end"]);
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

  it("the last bar gets its own run_end prompt, not a false week or month end", async () => {
    // SPY's first 24 sessions end on Friday 1999-12-03: a week end, not a month end, and run_end.
    const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 24, work, "SPY24.csv");
    const before = server.requests.length;
    const { dir } = await runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot: path.join(work, "run-end"),
    });
    expect(momentsByBar(dir).get(23)).toEqual(["eod", "week", "run_end"]);
    const last = server.requests
      .slice(before)
      .filter((r) => isMoment(r) && barOf(r) === 24 && turnMessages(r).length === 0);
    expect(last).toHaveLength(1);
    const prompt = userOf(last[0] as RecordedRequest);
    expect(prompt).toContain(MOMENT_PROMPTS.run_end);
    expect(prompt).toContain(MOMENT_PROMPTS.week.replace("{WEEK}", "1999-W48"));
    expect(prompt).not.toContain("The month has ended");
    // Turned off like any other moment.
    const off = await runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot: path.join(work, "run-end-off"),
      agent: { moments: ["eod", "week", "month"] },
    });
    expect(momentsByBar(off.dir).get(23)).toEqual(["eod", "week"]);
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
