import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveLayeredParams } from "../../../src/memory/layered/layered-config.js";
import { type LayeredOp, LayeredState } from "../../../src/memory/layered/layered-state.js";
import { readLayeredLog } from "../../../src/memory/layered/layered-system.js";
import { cli, DATA, replayArgs, tempDir } from "../../helpers/cli.js";
import { barOf, isMoment, runLlm, sliceCsv, turnMessages, userOf } from "../../helpers/llm-run.js";
import {
  type RecordedRequest,
  type ScriptedServer,
  type Step,
  startScriptedServer,
} from "../../helpers/scripted-openai-server.js";

// A year of GOOG (252 bars, 2004-08-19 to 2005-08-17) with the layered memory's defaults. GOOG's
// 20-bar mean return crosses ±5% between up and down at bars 66, 84, 109, 115, 135, 159 and 247
// (0-based), and falls 13% in the 5 bars to 2004-11-09: the script below holds 50 shares then.

const work = tempDir();
const runsRoot = path.join(work, "runs");
let server: ScriptedServer;
let dir = "";
let id = "";
let reflections = 0;
const params = resolveLayeredParams(undefined);

const call = (...calls: [string, unknown][]): Step => ({
  toolCalls: calls.map(([name, args]) => ({ name, arguments: JSON.stringify(args) })),
});

/** Every bar a short daily note (scored; four alike are compressed); every 25th a lesson stored in
 * short at 70 (promoted); a long from bar 35 to 62 (through the November fall: a loss), a short
 * from bar 90 to 100 and a long again from bar 200 (strategy changes); at bar 149 a bullish note
 * and at bar 150 a bearish one that contradicts it (consistency). Due reflections are written. */
function script(req: RecordedRequest): Step {
  if (turnMessages(req).some((m) => m.role === "tool")) return { content: "done" };
  if (isMoment(req)) {
    if (!userOf(req).includes("A reflection is due")) return { content: "nothing to add" };
    reflections++;
    return call([
      "memory_reflect",
      { content: `Reflection ${reflections} of the year: keep risk small and respect the trend` },
    ]);
  }
  const b = barOf(req);
  const calls: [string, unknown][] = [
    ["memory_store", { content: `GOOG daily note ${b}: watching the trend and the volume` }],
  ];
  if (b % 25 === 0) {
    calls.push([
      "memory_store",
      { content: `Lesson ${b}: size positions by volatility`, layer: "short", importance: 70 },
    ]);
  }
  if (b === 149)
    calls.push([
      "memory_store",
      { content: "GOOG bullish breakout rally, buy more", layer: "long" },
    ]);
  if (b === 150)
    calls.push(["memory_store", { content: "GOOG bearish breakdown, sell everything" }]);
  const order = (side: string, quantity: number) =>
    calls.push(["place_order", { symbol: "GOOG", side, quantity }]);
  if (b === 35) order("buy", 50);
  if (b === 62) order("sell", 50);
  if (b === 90) order("sell", 20);
  if (b === 100) order("buy", 20);
  if (b === 200) order("buy", 10);
  return call(...calls);
}

beforeAll(async () => {
  server = await startScriptedServer(script);
  const data = sliceCsv(path.join(DATA, "GOOG.csv"), 252, work);
  const run = await runLlm({
    baseURL: server.url,
    data: [data],
    runsRoot,
    broker: { allowShort: true },
    agent: { cache: false, moments: ["run_end"] },
    memory: { system: "layered", config: params },
  });
  dir = run.dir;
  id = run.result.id;
  expect(run.result.status).toBe("completed");
}, 300_000);

afterAll(async () => {
  await server.close();
  fs.rmSync(work, { recursive: true, force: true });
});

describe("a year of the layered memory with the design's defaults", () => {
  it("shows promotions, compressions, merges and reflections from each of the five triggers", () => {
    const log = readLayeredLog(dir);
    const ends = log.filter((o) => o.op === "day_end");
    expect(ends).toHaveLength(252);
    const why = ends.flatMap((o) => o.moves.map((m) => m.why));
    expect(why).toContain("promote");
    expect(why).toContain("compress");
    const triggers = new Set(ends.map((o) => o.reflection).filter((r) => r !== null));
    expect([...triggers].sort()).toEqual(["consistency", "days", "loss", "regime", "strategy"]);
    // The bearish note of bar 150 (log bar 149) is the inconsistent one.
    const bearish = log.find((o) => o.op === "store" && o.content.includes("bearish"));
    expect(bearish).toMatchObject({ bar: 149 });
    expect((bearish as { consistency: number }).consistency).toBeLessThan(0.3);
    expect(ends.filter((o) => o.reflection === "consistency").map((o) => o.bar)).toEqual([149]);
    const result = JSON.parse(fs.readFileSync(path.join(dir, "result.json"), "utf8"));
    for (const k of [
      "promotions",
      "compressions",
      "triggerDays",
      "triggerLoss",
      "triggerStrategy",
      "triggerRegime",
      "triggerConsistency",
    ]) {
      expect(result.memory[k], k).toBeGreaterThan(0);
    }
    expect(result.memory.reflections).toBe(reflections);
  });

  it("a second replay of the log's inputs gives every derived field of every line", () => {
    const log = readLayeredLog(dir);
    const s = new LayeredState(params);
    for (const op of log) {
      let again: LayeredOp;
      if (op.op === "store") {
        again = s.store(op.time, op.bar, op.layer, op.importance, op.content, op.vector, {
          ...(op.factors === undefined ? {} : { factors: op.factors }),
          ...(op.consistency === undefined ? {} : { consistency: op.consistency }),
        });
      } else if (op.op === "duplicate") {
        again = s.reflect(op.time, op.bar, 80, op.content, op.vector);
      } else {
        again = s.dayEnd(op.time, op.bar, op.equity, {
          regime: op.regime ?? null,
          strategyChange: op.strategyChange === true,
        });
      }
      expect(again, `line ${op.seq}`).toEqual(op);
    }
  });

  it("--replay reproduces the log byte for byte, with the bars read again", () => {
    const rep = cli(replayArgs(id, runsRoot, "--json"), work);
    expect(rep.status, rep.stderr).toBe(0);
    const replayed = JSON.parse(rep.stdout);
    expect(fs.readFileSync(path.join(runsRoot, replayed.id, "layered.jsonl"), "utf8")).toBe(
      fs.readFileSync(path.join(dir, "layered.jsonl"), "utf8"),
    );
    const original = JSON.parse(fs.readFileSync(path.join(dir, "result.json"), "utf8"));
    expect(replayed.memory).toEqual(original.memory);
  });
});
