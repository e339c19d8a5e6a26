import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, cliRun, DATA, tempDir } from "../helpers/cli.js";
import { readJsonl, sliceCsv, turnMessages } from "../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../helpers/scripted-openai-server.js";

/**
 * The four quirks of real OpenAI-compatible servers, each through the real CLI against a server
 * answering the way such servers do: object arguments, tool calls as Hermes text (readable, and
 * not), `<think>` in the content, and no `usage`.
 */
const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const data = sliceCsv(path.join(DATA, "SPY_D.csv"), 3, work, "SPY.csv");

/** A chat completion body as such a server sends it (one choice, no usage unless given). */
function body(message: Record<string, unknown>, finish: string, usage?: object): Step {
  const b: Record<string, unknown> = {
    id: "chatcmpl-local",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "local-model",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
  };
  if (usage) b.usage = usage;
  return { status: 200, body: b };
}
const USAGE = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 };
const count = (text: string, part: string) => text.split(part).length - 1;

/** First call of a decision: `first`; once it has tool results: `then`. */
const perTurn =
  (first: Step, then: Step) =>
  (req: RecordedRequest): Step =>
    turnMessages(req).some((m) => m.role === "tool") ? then : first;

async function run(
  name: string,
  script: (req: RecordedRequest) => Step,
  ...more: string[]
): Promise<{ status: number | null; stdout: string; stderr: string; dir: string; runs: string }> {
  const server = await startScriptedServer(script);
  const runs = path.join(work, name);
  try {
    const r = await cliRun(
      [
        "run",
        "--prompt",
        "Trade SPY.",
        "--data",
        data,
        "--model",
        "local-model",
        "--base-url",
        server.url,
        "--runs-dir",
        runs,
        "--no-cache",
        "--moments",
        "none",
        ...more,
      ],
      work,
      { ...process.env, OPENAI_API_KEY: "local" },
    );
    const [id] = fs.existsSync(runs) ? fs.readdirSync(runs) : [];
    return { ...r, dir: path.join(runs, id ?? "?"), runs };
  } finally {
    await server.close();
  }
}
const resultOf = (dir: string) =>
  JSON.parse(fs.readFileSync(path.join(dir, "result.json"), "utf8")) as {
    status: string;
    stopReason: string | null;
    error: { type: string; message: string } | null;
    warnings: string[];
    llm: { usage: Record<string, unknown>; agent: { failedDecisions: number } };
  };
const decisionsOf = (dir: string) =>
  readJsonl(path.join(dir, "decisions.jsonl")).filter((d) => d.type === "decision");
const memoryFiles = (dir: string, sub: string) =>
  fs
    .readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.split(path.sep).includes(sub) && f.endsWith(".md"))
    .map((f) => fs.readFileSync(path.join(dir, f), "utf8"));

describe("quirks of local OpenAI-compatible servers, through the CLI", () => {
  it("object function.arguments: serialised, the memory writes happen, said once", async () => {
    const call = {
      id: "call_1",
      type: "function",
      function: {
        name: "memory_note",
        arguments: { key: "position_SPY", content: "Object arguments arrived." },
      },
    };
    const r = await run(
      "object-args",
      perTurn(
        body({ content: null, tool_calls: [call] }, "tool_calls", USAGE),
        body({ content: "Noted." }, "stop", USAGE),
      ),
    );
    expect(r.status, r.stderr).toBe(0);
    expect(resultOf(r.dir).status).toBe("completed");
    expect(memoryFiles(r.dir, "notes").join("")).toContain("Object arguments arrived.");
    for (const d of decisionsOf(r.dir)) {
      expect(d.toolCalls).toEqual([expect.objectContaining({ name: "memory_note", error: null })]);
    }
    expect(count(r.stderr, "tool-call arguments as a JSON object")).toBe(1);
    expect(resultOf(r.dir).warnings.join("\n")).toContain("as a JSON object");
  });

  it("Hermes <tool_call> text: read and run, the journal has the entry", async () => {
    const hermes = `<tool_call>\n${JSON.stringify({ name: "memory_log", arguments: { content: "Hermes entry." } })}\n</tool_call>`;
    const r = await run(
      "hermes",
      perTurn(
        body({ content: hermes }, "stop", USAGE),
        body({ content: "Logged." }, "stop", USAGE),
      ),
    );
    expect(r.status, r.stderr).toBe(0);
    expect(resultOf(r.dir).status).toBe("completed");
    expect(memoryFiles(r.dir, "journal").join("")).toContain("Hermes entry.");
    for (const d of decisionsOf(r.dir)) {
      expect(d.textToolCalls).toBe(1);
      expect(d.rationale).toBe("Logged.");
    }
    expect(count(r.stderr, "returned tool calls as text")).toBe(1);
    expect(r.stderr).toContain("--enable-auto-tool-choice");
  });

  it("unreadable Hermes text: typed tool_call_as_text decisions, the run fails with the fix", async () => {
    const broken =
      '<tool_call>\n{"name": "memory_log", "arguments": {"content": "lost"\n</tool_call>';
    const r = await run(
      "hermes-broken",
      () => body({ content: broken }, "stop", USAGE),
      "--max-failed-decisions",
      "10",
    );
    expect(r.status).toBe(1);
    const result = resultOf(r.dir);
    expect(result.status).toBe("failed");
    expect(result.error?.type).toBe("tool_call_as_text");
    expect(r.stderr).toContain("--enable-auto-tool-choice --tool-call-parser hermes");
    expect(r.stderr).toContain("--jinja");
    const decisions = decisionsOf(r.dir);
    expect(decisions).toHaveLength(3);
    for (const d of decisions) {
      expect((d.error as { type: string }).type).toBe("tool_call_as_text");
    }
    expect(memoryFiles(r.dir, "journal").join("")).not.toContain("lost");
  });

  it("<think> in content: the rationale is clean, the reasoning kept and shown by show --full", async () => {
    const thought = "RSI is 51: neutral.\nNo edge today.";
    const r = await run("think", () =>
      body({ content: `<think>\n${thought}\n</think>\n\nHolding SPY.` }, "stop", USAGE),
    );
    expect(r.status, r.stderr).toBe(0);
    const decisions = decisionsOf(r.dir);
    for (const d of decisions) {
      expect(d.rationale).toBe("Holding SPY.");
      expect(d.reasoning).toBe(thought);
      expect(d.reasoningChars).toBe(thought.length);
    }
    const at = String(decisions[0]?.time).slice(0, 10);
    const brief = cli(["show", r.dir, "--at", at], work);
    expect(brief.status, brief.stderr).toBe(0);
    expect(brief.stdout).toContain(`Reasoning     ${thought.length} chars (--full shows it)`);
    expect(brief.stdout).not.toContain("No edge today.");
    expect(brief.stdout).not.toContain("<think>");
    const full = cli(["show", r.dir, "--at", at, "--full"], work);
    expect(full.stdout).toContain("  No edge today.");
    expect(full.stdout).toMatch(/Rationale\n {2}Holding SPY\./);
  });

  it("no usage: unknown in the summary, list and compare, never 0, with one warning", async () => {
    const r = await run("no-usage", () => body({ content: "Holding." }, "stop"));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /billed tokens unknown \(no usage reported for 3 calls; local estimate ~\d+ in \/ ~\d+ out\)/,
    );
    expect(r.stdout).not.toMatch(/billed tokens 0 in/);
    expect(r.stdout).toContain("cost unknown (the server reported no token usage for 3 calls)");
    expect(count(r.stderr, "reports no token usage")).toBe(1);
    const usage = resultOf(r.dir).llm.usage as {
      usageUnknown: { calls: number; billedCalls: number };
      cost: { usd: number | null };
    };
    expect(usage.usageUnknown).toMatchObject({ calls: 3, billedCalls: 3 });
    expect(usage.cost.usd).toBeNull();
    for (const d of decisionsOf(r.dir)) expect(d.tokensUnknownCalls).toBe(1);
    const report = fs.readFileSync(path.join(r.dir, "report.html"), "utf8");
    expect(report).toContain("reported no token usage for some calls");

    const list = cli(["list", "--runs-dir", r.runs], work);
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/unknown/);
    const known = await run("with-usage", () => body({ content: "Holding." }, "stop", USAGE));
    const compare = cli(["compare", r.dir, known.dir], work);
    expect(compare.status, compare.stderr).toBe(0);
    const line = compare.stdout.split("\n").find((l) => l.trim().startsWith("prompt tokens")) ?? "";
    expect(line).toMatch(/unknown/);
    expect(line).toMatch(/300/);
    const json = cli(["compare", r.dir, known.dir, "--json"], work);
    const runs = (JSON.parse(json.stdout) as { runs: { llm: Record<string, unknown> }[] }).runs;
    expect(runs[0]?.llm).toMatchObject({ promptTokens: null, usageUnknown: true });
    expect(runs[1]?.llm).toMatchObject({ promptTokens: 300 });
  });

  it("no usage and --max-cost: enforced from the local estimate, labelled as one", async () => {
    const prices = path.join(work, "prices.json");
    fs.writeFileSync(
      prices,
      JSON.stringify({ "local-model": { input: 100, cachedInput: 50, output: 100 } }),
    );
    const r = await run(
      "no-usage-budget",
      () => body({ content: "Holding." }, "stop"),
      "--prices",
      prices,
      "--max-cost",
      "0.0001",
    );
    const result = resultOf(r.dir);
    expect(result.status, r.stderr).toBe("budget_exhausted");
    expect(result.stopReason).toMatch(
      /cost budget spent: ~\$[\d.]+ \(estimated locally at 4 characters per token/,
    );
    expect(decisionsOf(r.dir).length).toBeLessThan(3);
  });
});
