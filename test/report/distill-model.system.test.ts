import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LlmError } from "../../src/agent/types.js";
import { DISTILL_TRANSCRIPT_FILE } from "../../src/config/memory-command-settings.js";
import { reachesPast } from "../../src/memory/persistent/look-ahead.js";
import { PersistentStore } from "../../src/memory/persistent/persistent-store.js";
import { type DistillModelOptions, distillRunsWithModel } from "../../src/report/distill-model.js";
import { type DistillOptions, distillRuns } from "../../src/report/distill-runs.js";
import { distillOutputSchema } from "../../src/rundir/memory-command-schemas.js";
import { finishedRunDir, utc } from "../helpers/finished-run.js";
import {
  type RecordedRequest,
  type ScriptedServer,
  type Step,
  startScriptedServer,
} from "../helpers/scripted-openai-server.js";

const work = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-distill-model-"));
const runsRoot = path.join(work, ".agenticbt", "runs");
const memoryRoot = path.join(work, ".agenticbt", "memory");

// Three finished runs: a (Q1 2020), c (Feb–May, overlapping a and b), b (Q2 2020).
const a = finishedRunDir(
  runsRoot,
  "run-a",
  { start: "2020-01-02", end: "2020-03-31" },
  ["Cut losses at 2 percent.", "Earnings weeks break RSI signals."],
  { "month_2020-03": "March: choppy, two stops hit.", "week_2020-W10": "A quiet week." },
);
const b = finishedRunDir(runsRoot, "run-b", { start: "2020-04-01", end: "2020-06-30" }, [
  "cut  losses at 2 PERCENT.",
  "Gaps above the prior high fade by noon.",
]);
const c = finishedRunDir(runsRoot, "run-c", { start: "2020-02-03", end: "2020-05-29" }, [
  "Gaps fade before lunch.",
]);

/** The model's answer: three entries, on two runs, one run and two overlapping runs. */
const ANSWER = {
  entries: [
    {
      title: "Cut losses at 2%",
      text: "Exit a position once it is 2% below its entry.",
      runs: ["run-b", "run-a"],
    },
    { title: "Earnings weeks", text: "Skip RSI signals in earnings weeks.", runs: ["run-a"] },
    {
      title: "Opening gaps fade",
      text: "Gaps above the prior high fade by noon.",
      runs: ["run-c", "run-b"],
    },
  ],
};
const fenced = (x: unknown) => `Here are the entries:\n\`\`\`json\n${JSON.stringify(x)}\n\`\`\``;

/** Each test gives the script its steps; the server answers from the current one. */
let steps: Step[] = [];
let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer((_req, i) => steps[i - offset] ?? { status: 500 });
});
let offset = 0;
/** Starts a test's script: its steps answer the next requests, in order. */
function script(...next: Step[]): void {
  offset = server.requests.filter(isChat).length;
  steps = next;
}
const isChat = (r: RecordedRequest) => r.path === "/v1/chat/completions";
const chats = () => server.requests.filter(isChat);
afterAll(async () => {
  await server.close();
  fs.rmSync(work, { recursive: true, force: true });
});

const opts = (namespace: string, more: Partial<DistillOptions> = {}): DistillOptions => ({
  namespace,
  runsRoot,
  minRuns: 1,
  reviews: "month",
  ...more,
});
function model(more: Partial<DistillModelOptions> = {}): DistillModelOptions {
  return {
    model: "distiller",
    baseURL: server.url,
    temperature: 0,
    seed: null,
    maxOutputTokens: null,
    timeoutMs: 5000,
    maxRetries: 0,
    maxRetryWaitS: 1,
    dateBy: "sources",
    answerRetries: 1,
    maxTokens: null,
    maxCost: null,
    pricesFile: null,
    cache: false,
    cacheDir: path.join(work, "cache"),
    replay: null,
    ...more,
  };
}
const entryText = (ns: string, file: string) =>
  fs.readFileSync(path.join(memoryRoot, ns, file), "utf8");

describe("memory distill --model against the scripted server", () => {
  it("asks once with every run, writes the model's entries dated by the union of their runs", async () => {
    script({ content: fenced(ANSWER), usage: { prompt: 300, completion: 60 } });
    const out = await distillRunsWithModel([b, c, a], opts("m1"), model({ cache: true }));
    distillOutputSchema.parse(out);
    expect(chats()).toHaveLength(1);
    const body = chats()[0]!.body as { messages: { role: string; content: string }[] };
    expect(body.messages.map((m) => m.role)).toEqual(["system", "user"]);
    const prompt = body.messages[1]!.content;
    // The runs oldest end first: a (Mar 31), c (May 29), b (Jun 30); the monthly review only.
    expect(prompt.indexOf("## Run run-a")).toBeLessThan(prompt.indexOf("## Run run-c"));
    expect(prompt.indexOf("## Run run-c")).toBeLessThan(prompt.indexOf("## Run run-b"));
    expect(prompt).toContain(
      "## Run run-a\nPeriod: 2020-01-02 00:00 .. 2020-03-31 00:00\n\n### Lessons\n- Cut losses at 2 percent.\n- Earnings weeks break RSI signals.\n\n### Reviews\n#### month_2020-03\nMarch: choppy, two stops hit.",
    );
    expect(prompt).not.toContain("A quiet week.");

    expect(out.entries.map((e) => [e.title, e.kind, e.runs, e.period])).toEqual([
      [
        "Cut losses at 2%",
        "lesson",
        ["run-a", "run-b"],
        // a and b do not overlap: two stretches.
        "2020-01-02 00:00 .. 2020-03-31 00:00 + 2020-04-01 00:00 .. 2020-06-30 00:00",
      ],
      ["Earnings weeks", "lesson", ["run-a"], "2020-01-02 00:00 .. 2020-03-31 00:00"],
      // c and b overlap: one stretch from c's start to b's end.
      ["Opening gaps fade", "lesson", ["run-c", "run-b"], "2020-02-03 00:00 .. 2020-06-30 00:00"],
    ]);
    expect(out.model).toMatchObject({
      name: "distiller",
      cache: true,
      replayOf: null,
      fallback: null,
      calls: { total: 1, network: 1, cache: 0, replay: 0, failed: 0 },
      billedTokens: { prompt: 300, completion: 60, cached: 0 },
    });
    expect(out.warnings).toEqual([]);

    const store = PersistentStore.readOnly(path.join(memoryRoot, "m1"));
    const byTitle = new Map(store.entries().map((e) => [e.fields.name, e]));
    const cut = byTitle.get("Cut losses at 2%")!;
    expect(cut.fields.type).toBe("lesson");
    expect(cut.fields.description).toBe("distilled by distiller from 2 run(s)");
    expect(cut.fields.body).toBe(
      "Exit a position once it is 2% below its entry.\n\nDrawn from 2 of 3 distilled runs: run-a (2020-01-02 00:00 .. 2020-03-31 00:00), run-b (2020-04-01 00:00 .. 2020-06-30 00:00).",
    );
    expect(cut.fields.provenance).toEqual({
      runId: "run-a+run-b",
      periodStart: utc("2020-01-02"),
      periodEnd: utc("2020-06-30"),
      writtenAt: utc("2020-06-30"),
    });
    // The look-ahead guard: a run starting 2020-04-01 sees the entry drawing on run-a alone
    // (ended Mar 31), not the ones drawing on run-b or run-c (ending after Apr 1); a run
    // starting 2020-06-30 sees all three.
    const earnings = byTitle.get("Earnings weeks")!;
    const gaps = byTitle.get("Opening gaps fade")!;
    expect(reachesPast(earnings, utc("2020-04-01"), "next")).toBe(false);
    expect(reachesPast(cut, utc("2020-04-01"), "next")).toBe(true);
    expect(reachesPast(gaps, utc("2020-04-01"), "next")).toBe(true);
    expect(reachesPast(gaps, utc("2020-05-29"), "next")).toBe(true);
    for (const e of [earnings, cut, gaps])
      expect(reachesPast(e, utc("2020-06-30"), "next")).toBe(false);

    // The call is in the store's transcript.
    const transcript = path.join(memoryRoot, "m1", DISTILL_TRANSCRIPT_FILE);
    expect(out.model.transcript).toBe(transcript);
    const lines = fs
      .readFileSync(transcript, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.seq, l.source, l.error])).toEqual([[1, "network", null]]);
  });

  it("replays the recording with no request and writes identical entries; the cache answers too", async () => {
    script();
    const before = server.requests.length;
    const first = PersistentStore.readOnly(path.join(memoryRoot, "m1"))
      .entries()
      .map((e) => e.file);
    // No model and no temperature given: both are the recording's.
    const replayed = await distillRunsWithModel(
      [a, b, c],
      opts("m2"),
      model({ model: null, temperature: null, replay: path.join(memoryRoot, "m1") }),
    );
    expect(server.requests.length).toBe(before);
    expect(replayed.model.calls).toMatchObject({ total: 1, replay: 1, network: 0 });
    expect(replayed.model.replayOf).toBe(path.join(memoryRoot, "m1", DISTILL_TRANSCRIPT_FILE));
    expect(replayed.entries.map((e) => e.file)).toEqual(first.sort());
    for (const file of first) expect(entryText("m2", file)).toBe(entryText("m1", file));
    expect(entryText("m2", "MEMORY.md")).toBe(entryText("m1", "MEMORY.md"));

    const cached = await distillRunsWithModel([a, b, c], opts("m3"), model({ cache: true }));
    expect(server.requests.length).toBe(before);
    expect(cached.model.calls).toMatchObject({ total: 1, cache: 1, network: 0 });
    expect(cached.model.billedTokens).toEqual({ prompt: 0, completion: 0, cached: 0 });
    for (const file of first) expect(entryText("m3", file)).toBe(entryText("m1", file));

    // A replay of other runs or settings does not match the recording: bad usage.
    await expect(
      distillRunsWithModel([a, b], opts("m4"), model({ replay: path.join(memoryRoot, "m1") })),
    ).rejects.toThrow(/diverged at call 1.*--replay: distil the same runs/s);
  });

  it("--date-by all dates every entry by every distilled run", async () => {
    script({ content: JSON.stringify(ANSWER) });
    const out = await distillRunsWithModel([a, b, c], opts("dated"), model({ dateBy: "all" }));
    // a, c and b chain into one stretch; each entry keeps the runs it names.
    expect(out.entries.map((e) => [e.title, e.runs, e.period])).toEqual([
      ["Cut losses at 2%", ["run-a", "run-b"], "2020-01-02 00:00 .. 2020-06-30 00:00"],
      ["Earnings weeks", ["run-a"], "2020-01-02 00:00 .. 2020-06-30 00:00"],
      ["Opening gaps fade", ["run-c", "run-b"], "2020-01-02 00:00 .. 2020-06-30 00:00"],
    ]);
    const earnings = PersistentStore.readOnly(path.join(memoryRoot, "dated"))
      .entries()
      .find((e) => e.fields.name === "Earnings weeks")!;
    expect(earnings.fields.provenance).toEqual({
      runId: "run-a",
      periodStart: utc("2020-01-02"),
      periodEnd: utc("2020-06-30"),
      writtenAt: utc("2020-06-30"),
    });
    // Dated by its source alone, a run from 2020-04-01 saw it; dated by all, it does not.
    expect(reachesPast(earnings, utc("2020-04-01"), "next")).toBe(true);
  });

  it("asks again after a bad answer, telling the model what was wrong; drops entries below --min-runs", async () => {
    script(
      { content: "Sure! Cut losses." },
      { content: JSON.stringify(ANSWER), usage: { prompt: 500, completion: 80 } },
    );
    const out = await distillRunsWithModel([a, b, c], opts("retry", { minRuns: 2 }), model());
    expect(chats().length - offset).toBe(2);
    const second = chats().at(-1)!.body as { messages: { role: string; content: string }[] };
    expect(second.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(second.messages[1]!.content).toMatch(/^3 run\(s\)\. Each entry must draw on at least 2/);
    expect(second.messages[2]!.content).toBe("Sure! Cut losses.");
    expect(second.messages[3]!.content).toBe(
      "That answer cannot be used: it is not valid JSON. Answer again with the JSON object only.",
    );
    // "Earnings weeks" draws on one run: left out.
    expect(out.entries.map((e) => e.title)).toEqual(["Cut losses at 2%", "Opening gaps fade"]);
    expect(out.lessonsBelowMinRuns).toBe(1);
    expect(out.model).toMatchObject({
      fallback: null,
      calls: { total: 2, network: 2 },
      billedTokens: { prompt: 10 + 500, completion: 5 + 80 },
    });
    const lines = fs
      .readFileSync(path.join(memoryRoot, "retry", DISTILL_TRANSCRIPT_FILE), "utf8")
      .trim()
      .split("\n");
    expect(lines).toHaveLength(2);
  });

  it("falls back to the rules' distillation, with a warning, after bad answers", async () => {
    const unknown = { entries: [{ title: "t", text: "x", runs: ["run-z"] }] };
    script({ content: JSON.stringify(unknown) }, { content: JSON.stringify(unknown) });
    const warned: string[] = [];
    const out = await distillRunsWithModel(
      [a, b, c],
      opts("fallback"),
      model({ onWarning: (m) => warned.push(m) }),
    );
    expect(chats().length - offset).toBe(2);
    const fallback =
      'the model\'s answer could not be used after 2 attempt(s): entry 1 names unknown run(s) "run-z"; the runs are run-a, run-c, run-b';
    expect(out.model.fallback).toBe(fallback);
    expect(warned).toEqual([`The deterministic distillation was written instead: ${fallback}.`]);
    expect(out.warnings).toEqual(warned);
    // Exactly what the distillation without a model writes.
    const rules = distillRuns([a, b, c], opts("rules"));
    expect(out.entries).toEqual(rules.entries);
    for (const e of rules.entries)
      expect(entryText("fallback", e.file)).toBe(entryText("rules", e.file));
    // Its replay falls back the same way, from the recording.
    script();
    const replayed = await distillRunsWithModel(
      [a, b, c],
      opts("fallback2"),
      model({ replay: path.join(memoryRoot, "fallback", DISTILL_TRANSCRIPT_FILE) }),
    );
    expect(chats().length - offset).toBe(0);
    expect(replayed.model.fallback).toBe(fallback);
    expect(replayed.entries).toEqual(rules.entries);
  });

  it("falls back when the budget is spent or the server keeps failing; a bad key is an error", async () => {
    // The first answer is bad and spends 15 tokens of a 10-token budget: no second ask.
    script({ content: "no JSON", usage: { prompt: 10, completion: 5 } });
    const spent = await distillRunsWithModel([a, b], opts("budget"), model({ maxTokens: 10 }));
    expect(chats().length - offset).toBe(1);
    expect(spent.model.fallback).toBe("token budget spent: 15 billed tokens >= --max-tokens 10");
    expect(spent.entries.map((e) => e.kind)).toEqual(["lesson", "lesson", "lesson", "review"]);

    script({ status: 500, body: { error: { message: "down" } } }, { status: 500 });
    const down = await distillRunsWithModel([a, b], opts("down"), model({ maxRetries: 1 }));
    expect(chats().length - offset).toBe(2);
    expect(down.model.fallback).toMatch(/^the model call failed: /);
    expect(down.model.calls).toMatchObject({ total: 1, failed: 1 });
    const recorded = fs
      .readFileSync(path.join(memoryRoot, "down", DISTILL_TRANSCRIPT_FILE), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(recorded.map((l) => [l.error?.type, l.attempts])).toEqual([["server_error", 2]]);

    script({ status: 401, body: { error: { message: "Incorrect API key" } } });
    const error = await distillRunsWithModel([a, b], opts("auth"), model()).catch((e) => e);
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).type).toBe("auth");
    expect(PersistentStore.readOnly(path.join(memoryRoot, "auth")).entries()).toEqual([]);
  });

  it("keeps the previous transcript as .bak and refuses a link in its place", async () => {
    const store = path.join(memoryRoot, "m1");
    const before = fs.readFileSync(path.join(store, DISTILL_TRANSCRIPT_FILE), "utf8");
    script({ content: JSON.stringify({ entries: [] }) });
    const out = await distillRunsWithModel([a], opts("m1"), model({ seed: 7 }));
    expect(out.entries).toEqual([]);
    expect(fs.readFileSync(path.join(store, `${DISTILL_TRANSCRIPT_FILE}.bak`), "utf8")).toBe(
      before,
    );
    expect(
      JSON.parse(fs.readFileSync(path.join(store, DISTILL_TRANSCRIPT_FILE), "utf8")).request.seed,
    ).toBe(7);

    const outside = path.join(work, "outside.jsonl");
    fs.writeFileSync(outside, "keep\n");
    fs.rmSync(path.join(store, DISTILL_TRANSCRIPT_FILE));
    fs.symlinkSync(outside, path.join(store, DISTILL_TRANSCRIPT_FILE));
    script({ content: JSON.stringify({ entries: [] }) });
    await expect(distillRunsWithModel([a], opts("m1"), model({ seed: 8 }))).rejects.toThrow(
      /symbolic link/,
    );
    expect(chats().length - offset).toBe(0);
    expect(fs.readFileSync(outside, "utf8")).toBe("keep\n");
  });
});
