import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliRun, DATA, ROOT, tempDir } from "../helpers/cli.js";
import { readJsonl, sliceCsv, turnMessages } from "../helpers/llm-run.js";
import { type RecordedRequest, startScriptedServer } from "../helpers/scripted-openai-server.js";

/**
 * One test per row of docs/llm-traders.md's table of servers: each replays the answer shapes the
 * server's documentation shows (test/fixtures/servers/<row>.json), through the real CLI, and the
 * run must do what the answers say (the memory writes happen, the rationale is the text, the
 * reasoning is kept apart) with no failed decision.
 */
interface Fixture {
  server: string;
  source: string;
  shapes: { label: string; body: Record<string, unknown> }[];
}

const DIR = path.join(ROOT, "test", "fixtures", "servers");
const ROWS = fs
  .readdirSync(DIR)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => ({
    file: f,
    fixture: JSON.parse(fs.readFileSync(path.join(DIR, f), "utf8")) as Fixture,
  }));

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const data = sliceCsv(path.join(DATA, "SPY_D.csv"), 3, work, "SPY.csv");

type Message = { tool_calls?: { function: { name: string; arguments: unknown } }[] | null };
const messageOf = (body: Record<string, unknown>) =>
  ((body.choices as { message: Message }[])[0]?.message ?? {}) as Message & {
    content?: string | null;
    reasoning?: string | null;
    reasoning_content?: string | null;
  };

/** The tools a shape calls, as real tool calls or as Hermes text. */
function toolsCalled(body: Record<string, unknown>): string[] {
  const m = messageOf(body);
  const real = (m.tool_calls ?? []).map((c) => c.function.name);
  const text = [...(m.content ?? "").matchAll(/"name": "(\w+)"/g)].map((x) => x[1] as string);
  return [...real, ...text];
}

const filesUnder = (dir: string, sub: string): string[] =>
  fs
    .readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.split(path.sep).includes(sub) && f.endsWith(".md"));

describe("known OpenAI-compatible servers: their documented answers, replayed", () => {
  it("covers every row of the table in docs/llm-traders.md", () => {
    const doc = fs.readFileSync(path.join(ROOT, "docs", "llm-traders.md"), "utf8");
    const rows = doc.split("\n").filter((l) => l.startsWith("| "));
    const names = rows.map((l) => l.split("|")[1]?.trim());
    for (const { fixture } of ROWS) expect(names).toContain(fixture.server);
    expect(ROWS.length).toBeGreaterThanOrEqual(10);
  });

  for (const { file, fixture } of ROWS) {
    it(`${fixture.server} (${file})`, async () => {
      // A decision walks the shapes in order: its n-th model call gets shape n (the last one
      // once past the end).
      const script = (req: RecordedRequest) => {
        const step = turnMessages(req).filter((m) => m.role === "assistant").length;
        const shape = fixture.shapes[Math.min(step, fixture.shapes.length - 1)];
        return { status: 200, body: shape?.body };
      };
      const server = await startScriptedServer(script);
      const runsRoot = path.join(work, file.replace(".json", ""));
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
            runsRoot,
            "--no-cache",
            "--moments",
            "none",
          ],
          work,
          { ...process.env, OPENAI_API_KEY: "local" },
        );
        expect(r.status, r.stderr).toBe(0);
        const [dir] = fs.readdirSync(runsRoot).map((d) => path.join(runsRoot, d));
        if (!dir) throw new Error("no run directory");
        const result = JSON.parse(fs.readFileSync(path.join(dir, "result.json"), "utf8"));
        expect(result.status).toBe("completed");
        expect(result.llm.agent.failedDecisions).toBe(0);
        const decisions = readJsonl(path.join(dir, "decisions.jsonl")).filter(
          (d) => d.type === "decision",
        );
        expect(decisions.length).toBe(3);
        const called = fixture.shapes.flatMap((s) => toolsCalled(s.body));
        const last = fixture.shapes.at(-1)?.body ?? {};
        const final = messageOf(last);
        const thought = final.reasoning ?? final.reasoning_content ?? null;
        for (const d of decisions) {
          const calls = d.toolCalls as { name: string; error: unknown }[];
          expect(calls.map((c) => c.name)).toEqual(called);
          expect(calls.every((c) => c.error === null)).toBe(true);
          // The rationale is the answer's text, without reasoning or tags.
          expect(d.rationale).toBe(
            (final.content ?? "").replace(/<think>[\s\S]*<\/think>/, "").trim(),
          );
          const tagged = /<think>([\s\S]*)<\/think>/.exec(final.content ?? "")?.[1]?.trim() ?? null;
          const reasoning = thought ?? tagged;
          if (reasoning) {
            expect(d.reasoning).toBe(reasoning);
            expect(d.reasoningChars).toBe(reasoning.length);
          } else expect(d).not.toHaveProperty("reasoning");
        }
        // The memory writes happened.
        if (called.includes("memory_note"))
          expect(filesUnder(dir, "notes").length).toBeGreaterThan(0);
        if (called.includes("memory_log"))
          expect(filesUnder(dir, "journal").length).toBeGreaterThan(0);
        // Every documented shape reports usage: the summary counts it, never "unknown".
        expect(r.stdout).toMatch(/billed tokens \d+ in/);
        const reasoningTokens = fixture.shapes.reduce((n, s) => {
          const u = s.body.usage as { completion_tokens_details?: { reasoning_tokens?: number } };
          return n + (u?.completion_tokens_details?.reasoning_tokens ?? 0);
        }, 0);
        if (reasoningTokens > 0) {
          expect(result.llm.usage.reasoningTokens).toBe(reasoningTokens * 3);
        } else expect(result.llm.usage).not.toHaveProperty("reasoningTokens");
      } finally {
        await server.close();
      }
    });
  }
});
