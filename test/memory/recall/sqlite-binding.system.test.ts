import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DATA, ROOT, readJson, runDirs, tempDir } from "../../helpers/cli.js";
import { readJsonl, sliceCsv, turnMessages } from "../../helpers/llm-run.js";
import { installWithoutSqliteBinding } from "../../helpers/no-sqlite-install.js";
import { startScriptedServer } from "../../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const bin = installWithoutSqliteBinding(path.join(work, "install"));
const goog = sliceCsv(path.join(DATA, "GOOG.csv"), 20, work, "GOOG.csv");

interface Result {
  status: string;
  error: { type: string; message: string; at?: string | null; location?: string | null } | null;
}

/** The copied CLI, run without blocking (the test serves the scripted model meanwhile). */
function run(args: string[]): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: work,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, stderr })));
}

/** The run ended failed at its first memory call, naming the broken install and its fix. */
function expectEnvironmentFailure(r: { status: number | null; stderr: string }, runs: string) {
  expect(r.status, r.stderr).toBe(1);
  const [dir] = runDirs(runs);
  const result = readJson<Result>(path.join(dir as string, "result.json"));
  expect(result.status).toBe("failed");
  expect(result.error?.type).toBe("environment");
  expect(result.error?.message).toContain("better_sqlite3.node");
  expect(result.error?.message).toContain("npm rebuild better-sqlite3");
  expect(result.error?.location ?? null).toBeNull();
  expect(r.stderr).toContain("npm rebuild better-sqlite3");
  expect(r.stderr).not.toContain("the strategy threw");
  expect(r.stderr).not.toContain("Fix the strategy");
  return { dir: dir as string, result };
}

describe("better-sqlite3 without its native binding", () => {
  it("a code run that writes memory fails at its first memory call (init's note), blaming the install, not the strategy", async () => {
    const runs = path.join(work, "runs-code");
    const r = await run([
      "run",
      path.join(ROOT, "test/fixtures/strategies/journal-and-recall.ts"),
      "--data",
      goog,
      "--runs-dir",
      runs,
      "--no-ui",
    ]);
    const { result } = expectEnvironmentFailure(r, runs);
    // init's ctx.note is the strategy's first memory call: no bar ran after it.
    expect(result.error?.at).toBeNull();
  }, 60_000);

  it("a files-memory LLM run fails at the model's first memory call, and the model is told nothing", async () => {
    const server = await startScriptedServer((req) =>
      turnMessages(req).length > 0
        ? { content: "hold" }
        : {
            toolCalls: [
              { name: "memory_log", arguments: JSON.stringify({ content: "Watching GOOG." }) },
            ],
          },
    );
    try {
      const runs = path.join(work, "runs-llm");
      const r = await run([
        "run",
        "--prompt",
        "Trade GOOG.",
        "--data",
        goog,
        "--base-url",
        server.url,
        "--no-moments",
        "--no-ui",
        "--runs-dir",
        runs,
        "--cache-dir",
        path.join(work, "cache"),
      ]);
      const { dir } = expectEnvironmentFailure(r, runs);
      const chats = server.requests.filter((q) => q.path.endsWith("/chat/completions"));
      // One request asked for the memory call; none carried its result back to the model.
      expect(chats).toHaveLength(1);
      const decisions = readJsonl(path.join(dir, "decisions.jsonl"));
      expect(decisions.length).toBeLessThanOrEqual(1);
    } finally {
      await server.close();
    }
  }, 60_000);
});
