import fs from "node:fs";
import path from "node:path";
import fse from "fs-extra";
import { afterAll, describe, expect, it } from "vitest";
import { DATA, tempDir } from "../helpers/cli.js";
import { barOf, chatBody, isMoment, runLlm, turnMessages } from "../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const CUT = 30; // data rows kept intact; every later row is absurd

/** SPY's first 45 rows; in the poisoned copy every row after CUT is multiplied by 1000. */
function fixtures() {
  const lines = fs
    .readFileSync(path.join(DATA, "SPY_D.csv"), "utf8")
    .trim()
    .split("\n")
    .slice(0, 46);
  const clean = path.join(work, "clean", "SPY.csv");
  const poisoned = path.join(work, "poisoned", "SPY.csv");
  fse.outputFileSync(clean, `${lines.join("\n")}\n`);
  const bad = lines.map((line, k) => {
    if (k <= CUT) return line;
    const [idx, date, ...rest] = line.split(",");
    const v = rest.pop();
    return [idx, date, ...rest.map((x) => String(Number(x) * 1000)), v].join(",");
  });
  fse.outputFileSync(poisoned, `${bad.join("\n")}\n`);
  return { clean, poisoned };
}

/** An agent that looks at everything it can: 500 bars, every indicator it uses, its account. */
function curious(req: RecordedRequest): Step {
  const done = turnMessages(req).filter((m) => m.role === "tool").length;
  if (isMoment(req))
    return done
      ? { content: "ok" }
      : { toolCalls: [{ name: "memory_recall", arguments: '{"query":"price"}' }] };
  const steps = [
    { name: "get_bars", arguments: '{"symbol":"SPY","n":500}' },
    {
      name: "get_indicator",
      arguments: '{"name":"sma","symbol":"SPY","params":{"period":5},"n":200}',
    },
    { name: "get_indicator", arguments: '{"name":"bbands","symbol":"SPY","n":200}' },
    { name: "get_account", arguments: "{}" },
    { name: "memory_log", arguments: '{"content":"looked at everything"}' },
  ];
  const next = steps[done];
  if (next) return { toolCalls: [next] };
  return barOf(req) === 10
    ? {
        toolCalls: [
          { name: "place_order", arguments: '{"symbol":"SPY","side":"buy","quantity":3}' },
        ],
      }
    : { content: "hold" };
}

describe("no look-ahead for the LLM trader (poisoned future)", async () => {
  const { clean, poisoned } = fixtures();
  const servers = [await startScriptedServer(curious), await startScriptedServer(curious)];
  afterAll(() => Promise.all(servers.map((s) => s.close())));
  await runLlm({
    baseURL: servers[0]?.url ?? "",
    data: [clean],
    runsRoot: path.join(work, "runs-clean"),
    agent: { cache: false },
  });
  await runLlm({
    baseURL: servers[1]?.url ?? "",
    data: [poisoned],
    runsRoot: path.join(work, "runs-poisoned"),
    agent: { cache: false },
  });
  const upToCut = (reqs: RecordedRequest[]) =>
    reqs
      .filter((r) => r.path.endsWith("/chat/completions") && barOf(r) <= CUT)
      .map((r) => JSON.stringify(chatBody(r).messages));

  it("every request about bars up to t is identical whatever the bars after t hold", () => {
    const a = upToCut(servers[0]?.requests ?? []);
    const b = upToCut(servers[1]?.requests ?? []);
    expect(a.length).toBeGreaterThan(CUT * 6); // decisions with five tool calls each, plus moments
    expect(b).toEqual(a);
  });

  it("no request before the cut contains a poisoned price", () => {
    const poisonedPrice = String(
      Number(fs.readFileSync(poisoned, "utf8").trim().split("\n")[CUT + 1]?.split(",")[5]),
    );
    expect(upToCut(servers[1]?.requests ?? []).some((t) => t.includes(poisonedPrice))).toBe(false);
  });
});
