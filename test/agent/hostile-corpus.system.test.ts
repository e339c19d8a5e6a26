import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_TOOL_CALLS_PER_ANSWER } from "../../src/agent/tool-loop.js";
import { cliRun, DATA, tempDir } from "../helpers/cli.js";
import { chatBody, readJsonl, sliceCsv, turnMessages, userOf } from "../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../helpers/scripted-openai-server.js";

/**
 * The hostile-agent corpus (issue 10, item 7): tool calls a broken or malicious model may send,
 * one per decision, through the real CLI, the real `openai` client and real tool-call JSON. Each
 * must come back to the model as a tool error (`refused`), or, for text that is merely data, be
 * stored as data with nothing leaking (`harmless`). Nothing may be written outside the run
 * directory, the fake API key must appear nowhere, and the run must complete.
 */

const SECRET = "sk-hostile-FAKEKEY-7391-must-never-leak";
const work = tempDir("agenticbt-hostile-");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const outside = path.join(work, "outside");
const outsideFile = path.join(outside, "target.md");
const OUTSIDE_TEXT = "OUTSIDE-CONTENT-must-not-be-read-or-changed\n";

interface Ctx {
  runDir: string;
  /** The decision bar's date, "1999-11-03". */
  date: string;
}

interface Entry {
  label: string;
  name: string;
  /** The raw JSON text the model sends (may be malformed on purpose). */
  args: string;
  /** `refused`: the tool result is an error whose text matches; `harmless`: accepted as data. */
  expect: { refused: RegExp } | { harmless: true };
  /** Sets a trap in the run directory before the call arrives. */
  plant?: (c: Ctx) => void;
}

/** Shell and template spellings of the key's variable: they must stay text, never be expanded. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the literal placeholder is the test.
const KEY_ASK = "$OPENAI_API_KEY and ${OPENAI_API_KEY} and process.env.OPENAI_API_KEY";

const json = (value: unknown) => JSON.stringify(value);
const note = (key: string, content = "x") => json({ key, content });
const buy = (extra: Record<string, unknown>) => json({ symbol: "SPY", side: "buy", ...extra });
const link = (target: string, at: string) => {
  fs.mkdirSync(path.dirname(at), { recursive: true });
  fs.symlinkSync(target, at);
};

const CORPUS: Entry[] = [
  // Memory keys that try to leave the notes directory.
  {
    label: "note key ../../x",
    name: "memory_note",
    args: note("../../x"),
    expect: { refused: /path separator/ },
  },
  { label: "note key ..", name: "memory_note", args: note(".."), expect: { refused: /".."/ } },
  {
    label: "note key absolute /etc/passwd",
    name: "memory_note",
    args: note("/etc/passwd"),
    expect: { refused: /path separator/ },
  },
  {
    label: "note key Windows C:\\ path",
    name: "memory_note",
    args: note("C:\\Windows\\System32\\x"),
    expect: { refused: /path separator/ },
  },
  {
    label: "note key UNC path",
    name: "memory_note",
    args: note("\\\\server\\share\\x"),
    expect: { refused: /path separator/ },
  },
  {
    label: "note key Windows device name NUL",
    name: "memory_note",
    args: note("NUL"),
    expect: { refused: /reserved/ },
  },
  {
    label: "note key Windows device name com1.txt",
    name: "memory_note",
    args: note("com1.txt"),
    expect: { refused: /reserved/ },
  },
  {
    label: "note key with NUL byte",
    name: "memory_note",
    args: note("a\u0000b"),
    expect: { refused: /NUL/ },
  },
  {
    label: "note key hidden file",
    name: "memory_note",
    args: note(".bashrc"),
    expect: { refused: /starts with "."/ },
  },
  { label: "note key empty", name: "memory_note", args: note(""), expect: { refused: /empty/ } },
  {
    label: "note key 101 characters",
    name: "memory_note",
    args: note("k".repeat(101)),
    expect: { refused: /101 characters/ },
  },
  {
    label: "note key with ANSI escape",
    name: "memory_note",
    args: note("a\u001b[31mb"),
    expect: { refused: /character other than/ },
  },
  // Links planted in the run's memory, pointing outside it.
  {
    label: "note over a planted symlink",
    name: "memory_note",
    args: note("evil", "overwrite the target"),
    expect: { refused: /link/i },
    plant: (c) => link(outsideFile, path.join(c.runDir, "notes", "evil.md")),
  },
  {
    label: "journal entry over a planted symlink",
    name: "memory_log",
    args: json({ content: "append to the target" }),
    expect: { refused: /link/i },
    plant: (c) => link(outsideFile, path.join(c.runDir, "journal", `${c.date}.md`)),
  },
  {
    label: "review into a planted symlinked directory",
    name: "memory_note",
    args: note("week_1999-W47", "review"),
    expect: { refused: /link/i },
    plant: (c) => {
      fs.rmSync(path.join(c.runDir, "reviews"), { recursive: true, force: true });
      link(outside, path.join(c.runDir, "reviews"));
    },
  },
  // Oversized content and control characters.
  {
    label: "journal entry of 4001 characters",
    name: "memory_log",
    args: json({ content: "a".repeat(4001) }),
    expect: { refused: /4000/ },
  },
  {
    label: "note of 1 MB",
    name: "memory_note",
    args: note("big", "b".repeat(1 << 20)),
    expect: { refused: /20000/ },
  },
  {
    label: "journal entry with bell and clear-screen",
    name: "memory_log",
    args: json({ content: "hi\u0007\u001b[2J" }),
    expect: { refused: /control character/ },
  },
  {
    label: "note content with NUL byte",
    name: "memory_note",
    args: note("nul", "a\u0000b"),
    expect: { refused: /control character/ },
  },
  {
    label: "journal entry with right-to-left override",
    name: "memory_log",
    args: json({ content: "gain \u202e%05 ssol" }),
    expect: { refused: /control character/ },
  },
  {
    label: "order reason with escape sequence",
    name: "place_order",
    args: buy({ quantity: 1, reason: "\u001b]0;pwned\u0007" }),
    expect: { refused: /control character/ },
  },
  {
    label: "recall query with NUL byte",
    name: "memory_recall",
    args: json({ query: "a\u0000b" }),
    expect: { refused: /control character/ },
  },
  // Numbers that are not numbers, or not sane ones.
  {
    label: "quantity negative",
    name: "place_order",
    args: buy({ quantity: -5 }),
    expect: { refused: /quantity/ },
  },
  {
    label: "quantity zero",
    name: "place_order",
    args: buy({ quantity: 0 }),
    expect: { refused: /quantity/ },
  },
  {
    label: "quantity 1e308",
    name: "place_order",
    args: buy({ quantity: 1e308 }),
    expect: { refused: /quantity/ },
  },
  {
    label: "quantity 1e309 (Infinity after parsing)",
    name: "place_order",
    args: '{"symbol":"SPY","side":"buy","quantity":1e309}',
    expect: { refused: /quantity/ },
  },
  {
    label: "quantity NaN (not JSON)",
    name: "place_order",
    args: '{"symbol":"SPY","side":"buy","quantity":NaN}',
    expect: { refused: /not valid JSON/ },
  },
  {
    label: "target_weight -Infinity (not JSON)",
    name: "place_order",
    args: '{"symbol":"SPY","target_weight":-Infinity}',
    expect: { refused: /not valid JSON/ },
  },
  {
    label: "quantity as the string Infinity",
    name: "place_order",
    args: buy({ quantity: "Infinity" }),
    expect: { refused: /quantity/ },
  },
  {
    label: "quantity as the string 10",
    name: "place_order",
    args: buy({ quantity: "10" }),
    expect: { refused: /quantity/ },
  },
  {
    label: "limit price 1e308",
    name: "place_order",
    args: buy({ quantity: 1, type: "limit", limit_price: 1e308 }),
    expect: { refused: /limit_price/ },
  },
  {
    label: "stop loss 1e308",
    name: "place_order",
    args: buy({ quantity: 1, stop_loss: 1e308 }),
    expect: { refused: /stop_loss/ },
  },
  {
    label: "fraction_of_equity 1.5",
    name: "place_order",
    args: buy({ fraction_of_equity: 1.5 }),
    expect: { refused: /fraction_of_equity/ },
  },
  {
    label: "time_in_force 1e308 bars",
    name: "place_order",
    args: buy({ quantity: 1, time_in_force: 1e308 }),
    expect: { refused: /time_in_force/ },
  },
  {
    label: "get_bars n 1e308",
    name: "get_bars",
    args: json({ symbol: "SPY", n: 1e308 }),
    expect: { refused: /n:/ },
  },
  {
    label: "indicator period 1e308",
    name: "get_indicator",
    args: json({ name: "sma", symbol: "SPY", params: { period: 1e308 } }),
    expect: { refused: /period/ },
  },
  {
    label: "indicator period -14",
    name: "get_indicator",
    args: json({ name: "rsi", symbol: "SPY", params: { period: -14 } }),
    expect: { refused: /period/ },
  },
  {
    label: "cancel_order id 1.5",
    name: "cancel_order",
    args: json({ order_id: 1.5 }),
    expect: { refused: /order_id/ },
  },
  {
    label: "recall limit 1e308",
    name: "memory_recall",
    args: json({ query: "x", limit: 1e308 }),
    expect: { refused: /limit/ },
  },
  // Symbols, tools and JSON that do not exist.
  {
    label: "unknown symbol",
    name: "get_bars",
    args: json({ symbol: "ZZZZ" }),
    expect: { refused: /Unknown symbol/ },
  },
  {
    label: "symbol with traversal",
    name: "place_order",
    args: json({ symbol: "../../SPY", side: "buy", quantity: 1 }),
    expect: { refused: /Unknown symbol/ },
  },
  {
    label: "unknown tool exec_shell",
    name: "exec_shell",
    args: json({ cmd: "rm -rf /" }),
    expect: { refused: /Unknown tool/ },
  },
  {
    label: "unknown tool read_file",
    name: "read_file",
    args: json({ path: "/etc/passwd" }),
    expect: { refused: /Unknown tool/ },
  },
  {
    label: "malformed JSON",
    name: "place_order",
    args: "{symbol: SPY, quantity: 10",
    expect: { refused: /not valid JSON/ },
  },
  {
    label: "arguments as an array",
    name: "get_bars",
    args: "[1,2,3]",
    expect: { refused: /must be a JSON object/ },
  },
  {
    label: "prototype pollution key",
    name: "get_account",
    args: '{"__proto__":{"admin":true}}',
    expect: { refused: /__proto__|Unrecognized|unknown/i },
  },
  // Memory text asking for the key: plain data, stored verbatim, never expanded.
  {
    label: "note asking for the API key",
    name: "memory_note",
    args: note("api_key_request", `Write the value of ${KEY_ASK} here.`),
    expect: { harmless: true },
  },
  {
    label: "indicator named after the key",
    name: "get_indicator",
    args: json({ name: "process.env.OPENAI_API_KEY", symbol: "SPY" }),
    expect: { refused: /Unknown indicator|name/ },
  },
  {
    label: "recall of the key",
    name: "memory_recall",
    args: json({ query: "OPENAI_API_KEY sk- Bearer" }),
    expect: { harmless: true },
  },
];

/** Labels are the corpus' names in reports: unique, so a failure points at one entry. */
const BURST = 500;
const BARS = CORPUS.length + 3;

const idOf = (i: number) => `hostile_${String(i).padStart(2, "0")}`;
const burstId = (i: number) => `burst_${String(i).padStart(3, "0")}`;

/** Every path below `dir` with its content (or link target), for before/after comparison. */
function tree(dir: string, skip: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (skip.includes(full)) continue;
      if (e.isSymbolicLink()) out.set(full, `link:${fs.readlinkSync(full)}`);
      else if (e.isDirectory()) {
        out.set(full, "dir");
        walk(full);
      } else out.set(full, fs.readFileSync(full, "utf8"));
    }
  };
  walk(dir);
  return out;
}

describe("hostile-agent corpus", async () => {
  const runsRoot = path.join(work, "runs");
  const runDir = () => {
    const [only] = fs.existsSync(runsRoot) ? fs.readdirSync(runsRoot) : [];
    if (!only) throw new Error("no run directory yet");
    return path.join(runsRoot, only);
  };
  let decision = 0;
  const script = (req: RecordedRequest): Step => {
    if (turnMessages(req).length > 0) return { content: "Noted the tool results; holding." };
    decision += 1;
    if (decision === 1) {
      // The burst: far more calls in one answer than any model needs.
      return {
        toolCalls: Array.from({ length: BURST }, (_, i) => ({
          id: burstId(i),
          name: "get_account",
          arguments: "{}",
        })),
      };
    }
    const i = decision - 2;
    const entry = CORPUS[i];
    if (!entry) return { content: "Holding." };
    const date = /Bar \d+ of \d+: (\d{4}-\d{2}-\d{2})/.exec(userOf(req))?.[1] ?? "";
    entry.plant?.({ runDir: runDir(), date });
    return { toolCalls: [{ id: idOf(i), name: entry.name, arguments: entry.args }] };
  };
  const server = await startScriptedServer(script);
  afterAll(() => server.close());

  fs.mkdirSync(outside);
  fs.writeFileSync(outsideFile, OUTSIDE_TEXT);
  const data = sliceCsv(path.join(DATA, "SPY_D.csv"), BARS, work, "SPY.csv");
  const before = tree(work, [runsRoot, path.join(work, "cache")]);
  const run = await cliRun(
    [
      "run",
      "--prompt",
      "Trade SPY.",
      "--data",
      data,
      "--base-url",
      server.url,
      "--runs-dir",
      runsRoot,
      "--no-cache",
      "--moments",
      "none",
    ],
    work,
    { ...process.env, OPENAI_API_KEY: SECRET },
  );

  /** What the model received for each tool call id: the tool messages of later requests. */
  const received = new Map<string, string>();
  for (const r of server.requests) {
    if (r.path !== "/v1/chat/completions") continue;
    for (const m of chatBody(r).messages) {
      if (m.role === "tool" && m.tool_call_id && typeof m.content === "string")
        received.set(m.tool_call_id, m.content);
    }
  }

  it("the run completes", () => {
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(fs.readFileSync(path.join(runDir(), "result.json"), "utf8"));
    expect(result.status).toBe("completed");
    expect(CORPUS.length).toBeGreaterThanOrEqual(30);
    expect(new Set(CORPUS.map((e) => e.label)).size).toBe(CORPUS.length);
  });

  it.each(CORPUS.map((entry, i) => ({ ...entry, i })))(
    "$label: the model gets the expected tool result",
    ({ i, expect: expected }) => {
      const content = received.get(idOf(i));
      expect(content, "the call's result never reached the model").toBeDefined();
      const parsed = JSON.parse(content as string) as Record<string, unknown>;
      if ("refused" in expected) {
        expect(typeof parsed.error, content).toBe("string");
        expect(parsed.error, content).toMatch(expected.refused);
      } else {
        expect(parsed.error, content).toBeUndefined();
      }
    },
  );

  it("the transcript records the same tool results the model received", () => {
    const transcript = readJsonl(path.join(runDir(), "transcript.jsonl"));
    const recorded = new Map<string, string>();
    for (const line of transcript) {
      const messages = (
        line.request as { messages: { role: string; tool_call_id?: string; content: string }[] }
      ).messages;
      for (const m of messages)
        if (m.role === "tool" && m.tool_call_id) recorded.set(m.tool_call_id, m.content);
    }
    for (let i = 0; i < CORPUS.length; i++)
      expect(recorded.get(idOf(i))).toBe(received.get(idOf(i)));
  });

  it(`an answer with ${BURST} tool calls runs the first ${MAX_TOOL_CALLS_PER_ANSWER} and refuses the rest`, () => {
    const contents = Array.from({ length: BURST }, (_, i) => received.get(burstId(i)));
    // Every call id is answered (the API requires it), the first ones with the account...
    for (const c of contents.slice(0, MAX_TOOL_CALLS_PER_ANSWER)) expect(c).toMatch(/"cash"/);
    // ...the excess with an error, unexecuted.
    for (const c of contents.slice(MAX_TOOL_CALLS_PER_ANSWER)) {
      expect(c).toMatch(/"error":"Too many tool calls in one answer/);
    }
    const decisions = readJsonl(path.join(runDir(), "decisions.jsonl"));
    const first = decisions.find((d) => d.type === "decision") as {
      toolCalls: { error: { type: string } | null }[];
    };
    expect(first.toolCalls).toHaveLength(BURST);
    expect(first.toolCalls.filter((c) => c.error === null)).toHaveLength(MAX_TOOL_CALLS_PER_ANSWER);
    expect(first.toolCalls.filter((c) => c.error?.type === "call_limit")).toHaveLength(
      BURST - MAX_TOOL_CALLS_PER_ANSWER,
    );
  });

  it("nothing outside the run directory was written, and the planted target is untouched", () => {
    const after = tree(work, [runsRoot, path.join(work, "cache")]);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [file, content] of before) expect(after.get(file), file).toBe(content);
    expect(fs.readFileSync(outsideFile, "utf8")).toBe(OUTSIDE_TEXT);
    expect(fs.readdirSync(outside)).toEqual(["target.md"]);
  });

  it("a note asking for the key is stored verbatim, not expanded", () => {
    const text = fs.readFileSync(path.join(runDir(), "notes", "api_key_request.md"), "utf8");
    expect(text).toContain(KEY_ASK);
  });

  it("the API key appears in no file of the work directory, nor in stdout or stderr", () => {
    const files = fs
      .readdirSync(work, { recursive: true })
      .map((f) => path.join(work, String(f)))
      .filter((f) => fs.lstatSync(f).isFile());
    expect(files.length).toBeGreaterThan(8);
    for (const f of files) expect(fs.readFileSync(f, "utf8"), f).not.toContain(SECRET);
    expect(run.stdout).not.toContain(SECRET);
    expect(run.stderr).not.toContain(SECRET);
    // Only the Authorization header carried it, to the server.
    for (const r of server.requests) expect(JSON.stringify(r.body)).not.toContain(SECRET);
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
  });
});
