import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LLM_ERROR_TYPES } from "../../src/agent/types.js";
import type { RunEvent } from "../../src/runner/run-events.js";
import { mulberry32 } from "../../src/util/prng.js";
import { DATA, tempDir } from "../helpers/cli.js";
import { readJsonl, runLlm, sliceCsv, turnMessages } from "../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../helpers/scripted-openai-server.js";

/**
 * Fuzzes the shape of a chat completion: SHAPES answers (seeded), each made by mutating a
 * well-formed one field by field with the values real and broken servers send. Each shape is the
 * first answer of every decision of a short run (in process, real HTTP); once the model has tool
 * results it gets a plain answer. Required: no untyped failure anywhere (every failed decision
 * has a known type and no JavaScript error text), and no run that completes although no decision
 * called a tool without a warning saying so.
 */
const SHAPES = 240;
const SEED = 20_261_127;

const NOTE = { key: "position_SPY", content: "fuzz note" };
const call = (over: Record<string, unknown> = {}) => ({
  id: "call_f1",
  type: "function",
  function: { name: "memory_note", arguments: JSON.stringify(NOTE) },
  ...over,
});
const hermes = (inner: string) => `<tool_call>${inner}</tool_call>`;

/** Values each field takes: well-formed ones and what real or broken servers send. */
const CONTENT: unknown[] = [
  "Holding.",
  null,
  undefined,
  "",
  "   ",
  42,
  { text: "hold" },
  [{ type: "text", text: "Holding in parts." }],
  [1, 2],
  "<think>RSI neutral.</think>Holding.",
  "<think>cut off by max_tokens",
  "only the end of a thought</think>\nHolding.",
  hermes(JSON.stringify({ name: "memory_note", arguments: NOTE })),
  hermes('{"name": "memory_note", "arguments": {"key": '),
  hermes(JSON.stringify({ name: "no_such_tool", arguments: {} })),
  `[TOOL_CALLS]${JSON.stringify([{ name: "memory_note", arguments: NOTE }])}`,
  `[TOOL_CALLS]memory_note[ARGS]${JSON.stringify(NOTE)}`,
  "[TOOL_CALLS]garbage",
  JSON.stringify({ name: "memory_note", arguments: NOTE }),
  `\`\`\`json\n${JSON.stringify({ name: "get_account", parameters: {} })}\n\`\`\``,
  '{"name": "place_order", "arguments": {"symbol": "SPY"',
  '{"decision": "hold"}',
  "<|python_tag|>memory_note.call(key=1)",
];
const TOOL_CALLS: unknown[] = [
  undefined,
  null,
  [],
  "memory_note",
  {},
  [null],
  [{}],
  [call()],
  [call({ function: { name: "memory_note", arguments: NOTE } })],
  [call({ function: { name: "memory_note", arguments: 5 } })],
  [call({ function: { name: "memory_note", arguments: "{broken" } })],
  [call({ function: { name: "memory_note" } })],
  [call({ function: { arguments: "{}" } })],
  [call({ function: { name: 42, arguments: "{}" } })],
  [call({ function: "memory_note" })],
  [call({ type: "custom" })],
  [call({ id: undefined })],
  [call({ id: 5 })],
  [call({ function: { name: "exec_shell", arguments: "{}" } })],
];
const FINISH: unknown[] = [
  "stop",
  "tool_calls",
  "length",
  null,
  undefined,
  "weird",
  7,
  "eos_token",
];
const USAGE: unknown[] = [
  { prompt_tokens: 50, completion_tokens: 5, total_tokens: 55 },
  undefined,
  null,
  "lots",
  { prompt_tokens: -1, completion_tokens: 5 },
  { prompt_tokens: "50", completion_tokens: "5" },
  { prompt_tokens: 1e12, completion_tokens: 5 },
  { prompt_tokens: 50, completion_tokens: 9, completion_tokens_details: { reasoning_tokens: 4 } },
];
const REASONING: unknown[] = [undefined, null, "thinking hard", 5, { steps: [] }];
/** Whole bodies that are no chat completion at all. */
const WHOLE: unknown[] = [
  "not json at all",
  [],
  null,
  {},
  { choices: null },
  { choices: "x" },
  { choices: [] },
  { choices: [null] },
  { choices: [{}] },
  { choices: [{ message: null, finish_reason: "stop" }] },
  { choices: [{ message: "hold", finish_reason: "stop" }] },
  { choices: [{ message: [], finish_reason: "stop" }] },
];

const pick = <T>(r: () => number, list: readonly T[]): T =>
  list[Math.floor(r() * list.length)] as T;

function shape(r: () => number): unknown {
  if (r() < 0.1) return pick(r, WHOLE);
  const message: Record<string, unknown> = { role: "assistant" };
  const set = (k: string, v: unknown) => {
    if (v !== undefined) message[k] = v;
  };
  // Each field keeps its well-formed value or takes one of the list's, so shapes mix a few
  // quirks rather than all of them at once.
  set("content", r() < 0.6 ? pick(r, CONTENT) : "Holding.");
  const calls = r() < 0.5 ? pick(r, TOOL_CALLS) : undefined;
  set("tool_calls", calls);
  if (r() < 0.3) set(r() < 0.5 ? "reasoning_content" : "reasoning", pick(r, REASONING));
  if (r() < 0.1) set("refusal", pick(r, ["I cannot help.", 3, null]));
  const choice: Record<string, unknown> = { index: 0, message };
  const finish = r() < 0.3 ? pick(r, FINISH) : calls ? "tool_calls" : "stop";
  if (finish !== undefined) choice.finish_reason = finish;
  const body: Record<string, unknown> = {
    id: "chatcmpl-fuzz",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "fuzz-model",
    choices: [choice],
  };
  const usage = r() < 0.4 ? pick(r, USAGE) : USAGE[0];
  if (usage !== undefined) body.usage = usage;
  return body;
}

/** What only a bug would put in a failure's message: JavaScript's own error texts. */
const UNTYPED =
  /failed unexpectedly|is not a function|Cannot read propert|undefined is not|TypeError/;
const DECISION_ERRORS = new Set<string>([
  ...LLM_ERROR_TYPES,
  "empty_reply",
  "tool_call_as_text",
  "max_steps",
]);
const RUN_ERRORS = new Set(["max_failed_decisions", "no_decision", "tool_call_as_text"]);

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe(`answer-shape fuzz (${SHAPES} shapes, seed ${SEED})`, async () => {
  const random = mulberry32(SEED);
  // Distinct shapes only: a repeat tests nothing new.
  const seen = new Map<string, unknown>();
  for (let tries = 0; seen.size < SHAPES && tries < SHAPES * 20; tries++) {
    const s = shape(random);
    seen.set(JSON.stringify(s) ?? "undefined", s);
  }
  const shapes = [...seen.values()];
  let current: unknown = null;
  const script = (req: RecordedRequest): Step =>
    turnMessages(req).some((m) => m.role === "tool")
      ? { content: "Done." }
      : { status: 200, body: current };
  const server = await startScriptedServer(script);
  afterAll(() => server.close());
  const data = sliceCsv(path.join(DATA, "SPY_D.csv"), 2, work, "SPY.csv");

  const outcomes: {
    i: number;
    status: string;
    runError: string | null;
    untyped: string[];
    anyTool: boolean;
    warned: boolean;
  }[] = [];
  for (const [i, body] of shapes.entries()) {
    current = body;
    const events: RunEvent[] = [];
    const { result, dir } = await runLlm({
      baseURL: server.url,
      data: [data],
      runsRoot: path.join(work, "runs"),
      agent: { moments: [], maxRetries: 0, cache: false, maxSteps: 3, maxFailedDecisions: 5 },
      onEvent: (e) => events.push(e),
    });
    const decisions = readJsonl(path.join(dir, "decisions.jsonl")).filter(
      (d) => d.type === "decision",
    );
    const untyped: string[] = [];
    for (const d of decisions) {
      const error = d.error as { type: string; message: string } | null;
      if (error && (!DECISION_ERRORS.has(error.type) || UNTYPED.test(error.message))) {
        untyped.push(`${error.type}: ${error.message}`);
      }
    }
    if (
      result.error &&
      (!RUN_ERRORS.has(result.error.type) || UNTYPED.test(result.error.message))
    ) {
      untyped.push(`run ${result.error.type}: ${result.error.message}`);
    }
    const warnings = events.flatMap((e) => (e.type === "warning" ? [e.message] : []));
    outcomes.push({
      i,
      status: result.status,
      runError: result.error?.type ?? null,
      untyped,
      anyTool: decisions.some((d) => (d.toolCalls as unknown[]).length > 0),
      warned: warnings.some((w) => w.includes("called no tool")),
    });
  }

  it("generates at least 200 distinct shapes", () => {
    expect(shapes.length).toBe(SHAPES);
    expect(new Set(shapes.map((s) => JSON.stringify(s))).size).toBeGreaterThanOrEqual(200);
  });

  it("0 untyped errors", () => {
    const bad = outcomes.filter((o) => o.untyped.length > 0);
    expect(bad.map((o) => ({ shape: shapes[o.i], errors: o.untyped }))).toEqual([]);
  });

  it("every run ends completed or failed with a typed reason", () => {
    for (const o of outcomes) {
      expect(["completed", "failed"]).toContain(o.status);
      if (o.status === "failed") expect(RUN_ERRORS).toContain(o.runError);
    }
  });

  it("0 runs completed without any tool call and without a warning", () => {
    const silent = outcomes.filter((o) => o.status === "completed" && !o.anyTool && !o.warned);
    expect(silent.map((o) => shapes[o.i])).toEqual([]);
  });

  it("the mix exercises every outcome: tools run, typed failures, warned tool-less runs", () => {
    expect(outcomes.filter((o) => o.anyTool && o.status === "completed").length).toBeGreaterThan(
      20,
    );
    expect(outcomes.filter((o) => o.status === "failed").length).toBeGreaterThan(20);
    expect(outcomes.filter((o) => o.warned).length).toBeGreaterThan(5);
  });
});
