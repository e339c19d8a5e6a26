import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliRun, DATA, replayArgs, runDirs, tempDir } from "../helpers/cli.js";
import { barOf, readJsonl, runLlm, sliceCsv } from "../helpers/llm-run.js";
import {
  type RecordedRequest,
  type Step,
  startScriptedServer,
} from "../helpers/scripted-openai-server.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const SECRET = "sk-live-DO-NOT-LEAK-4242";
const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 20, work, "SPY.csv");
const chats = (s: { requests: { path: string }[] }) =>
  s.requests.filter((r) => r.path.endsWith("/chat/completions")).length;

/** A port on 127.0.0.1 that nothing listens on: connecting is refused at once. */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

interface CliOutcome {
  status: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
  result: Record<string, unknown> & {
    status: string;
    error: { type: string; message: string } | null;
    id: string;
  };
}

async function runCli(baseURL: string, extra: string[] = []): Promise<CliOutcome> {
  const runsRoot = path.join(work, "runs");
  const started = performance.now();
  const r = await cliRun(
    [
      "run",
      "--prompt",
      "Trade SPY.",
      "--data",
      spy,
      "--base-url",
      baseURL,
      "--model",
      "gpt-4o-mini",
      "--no-cache",
      "--runs-dir",
      runsRoot,
      "--json",
      ...extra,
    ],
    work,
    { ...process.env, OPENAI_API_KEY: SECRET },
  );
  const seconds = (performance.now() - started) / 1000;
  return { ...r, seconds, result: JSON.parse(r.stdout) };
}

/** Nothing of the key anywhere: stdout, stderr, or any file of the run. */
function expectNoSecret(o: CliOutcome) {
  expect(o.stdout).not.toContain(SECRET);
  expect(o.stderr).not.toContain(SECRET);
  const dir = path.join(work, "runs", o.result.id);
  for (const f of fs.readdirSync(dir, { recursive: true }).map(String)) {
    const file = path.join(dir, f);
    if (fs.statSync(file).isFile()) expect(fs.readFileSync(file, "utf8")).not.toContain(SECRET);
  }
}

describe("fatal errors fail the run at the first decision (exit 1, the fix on stderr)", () => {
  it("every call refused (401): failed, no retry, 'check OPENAI_API_KEY', key never shown", async () => {
    const server = await startScriptedServer(() => ({
      status: 401,
      body: {
        error: { message: `Incorrect API key provided: ${SECRET}.`, code: "invalid_api_key" },
      },
    }));
    const o = await runCli(server.url);
    await server.close();
    expect(o.status, o.stderr).toBe(1);
    expect(o.result.status).toBe("failed");
    expect(o.result.error?.type).toBe("auth");
    expect(o.stderr).toMatch(/check OPENAI_API_KEY/i);
    expect(chats(server)).toBe(1);
    expect(o.seconds).toBeLessThan(10);
    // The decision that failed is on record, with its error type.
    const decisions = readJsonl(path.join(work, "runs", o.result.id, "decisions.jsonl"));
    expect(decisions).toHaveLength(1);
    expect(decisions[0]?.error).toMatchObject({ type: "auth" });
    expectNoSecret(o);
    console.info(`401: failed in ${o.seconds.toFixed(2)} s`);
  });

  it("model not found (404 model_not_found): failed, 'check --model'", async () => {
    const server = await startScriptedServer(() => ({
      status: 404,
      body: {
        error: {
          message: "The model `gpt-4o-mini` does not exist or you do not have access to it.",
          type: "invalid_request_error",
          code: "model_not_found",
        },
      },
    }));
    const o = await runCli(server.url);
    await server.close();
    expect(o.status, o.stderr).toBe(1);
    expect(o.result.status).toBe("failed");
    expect(o.result.error?.type).toBe("model_not_found");
    expect(o.stderr).toMatch(/check --model/i);
    expect(chats(server)).toBe(1);
    expectNoSecret(o);
    // Its replay fails the same way, from the recording alone.
    const rep = await cliRun(replayArgs(o.result.id, path.join(work, "runs"), "--json"), work);
    expect(rep.status, rep.stderr).toBe(1);
    expect(JSON.parse(rep.stdout).error.type).toBe("model_not_found");
    expect(chats(server)).toBe(1);
    console.info(`404 model_not_found: failed in ${o.seconds.toFixed(2)} s`);
  });

  it("base URL unreachable (connection refused): failed within seconds, with default retries", async () => {
    const port = await closedPort();
    const o = await runCli(`http://127.0.0.1:${port}/v1`);
    expect(o.status, o.stderr).toBe(1);
    expect(o.result.status).toBe("failed");
    expect(o.result.error?.type).toBe("unreachable");
    expect(o.stderr).toMatch(/check --base-url/i);
    expect(o.stderr).toMatch(/is the server running\?/i);
    // Bounded: 3 quick attempts (the default --max-retries 4 does not apply to a refused
    // connection), not minutes of backoff.
    expect(o.result.error?.message).toContain("3 attempts");
    expect(o.seconds).toBeLessThan(10);
    expectNoSecret(o);
    console.info(`unreachable: failed in ${o.seconds.toFixed(2)} s`);
  });
});

describe("--max-failed-decisions", () => {
  it("fails the run after N failed decisions in a row (default 3), counting them", async () => {
    const server = await startScriptedServer(() => ({ status: 500 }));
    const { result, dir } = await runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot: path.join(work, "in-process"),
      agent: { maxRetries: 0, moments: [], cache: false },
    });
    await server.close();
    expect(result.status).toBe("failed");
    expect(result.error?.type).toBe("max_failed_decisions");
    expect(result.error?.message).toContain("--max-failed-decisions");
    expect(chats(server)).toBe(3);
    const agent = (result.llm as { agent: { failedDecisions: number; decisions: number } }).agent;
    expect(agent).toMatchObject({ decisions: 3, failedDecisions: 3 });
    expect(readJsonl(path.join(dir, "decisions.jsonl"))).toHaveLength(3);
  });

  it("is a run option: --max-failed-decisions 1 fails at the first failed decision", async () => {
    const server = await startScriptedServer(() => ({ status: 500 }));
    const o = await runCli(server.url, [
      "--max-failed-decisions",
      "1",
      "--max-retries",
      "0",
      "--no-moments",
    ]);
    await server.close();
    expect(o.status, o.stderr).toBe(1);
    expect(o.result.error?.type).toBe("max_failed_decisions");
    expect(o.stderr).toContain("--max-failed-decisions");
    expect(chats(server)).toBe(1);
  });

  it("does not fail when the failures are not in a row", async () => {
    // Odd bars fail (500), even bars hold: never 2 failures in a row.
    const server = await startScriptedServer((req) =>
      barOf(req) % 2 === 1 ? { status: 500 } : { content: "hold" },
    );
    const { result } = await runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot: path.join(work, "in-process"),
      agent: { maxRetries: 0, moments: [], cache: false, maxFailedDecisions: 2 },
    });
    await server.close();
    expect(result.status, JSON.stringify(result.error)).toBe("completed");
    const agent = (result.llm as { agent: { failedDecisions: number; decisions: number } }).agent;
    expect(agent).toMatchObject({ decisions: 20, failedDecisions: 10 });
  });

  it("a run in which the agent never decided is never completed", async () => {
    const two = sliceCsv(path.join(DATA, "SPY_D.csv"), 2, work, "SPY2.csv");
    const server = await startScriptedServer(() => ({ status: 503 }));
    const { result } = await runLlm({
      baseURL: server.url,
      data: [two],
      runsRoot: path.join(work, "in-process"),
      agent: { maxRetries: 0, moments: [], cache: false },
    });
    await server.close();
    expect(result.status).toBe("failed");
    expect(result.error?.type).toBe("no_decision");
  });

  for (const bad of ["0", "-1", "1.5", "abc", ""]) {
    it(`--max-failed-decisions ${JSON.stringify(bad)} is bad usage (exit 2, no run directory)`, async () => {
      const runsRoot = path.join(work, "usage");
      const r = await cliRun(
        [
          "run",
          "--prompt",
          "x",
          "--data",
          spy,
          "--base-url",
          "http://127.0.0.1:9/v1",
          "--runs-dir",
          runsRoot,
          "--max-failed-decisions",
          bad,
        ],
        work,
      );
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain("--max-failed-decisions");
      // Not a number: the notation; a number out of range or not whole: the range it must be in.
      expect(r.stderr).toMatch(/(expected a whole decimal number|it must be a whole number) >= 1/);
      expect(runDirs(runsRoot)).toEqual([]);
    });
  }
});

describe("an empty reply is a typed failed decision, empty_reply", () => {
  it("is recorded with its type and counted with the failed decisions", async () => {
    const script = (req: RecordedRequest): Step =>
      barOf(req) === 2
        ? { content: "" }
        : barOf(req) === 3
          ? { content: "  \n" }
          : { content: "hold" };
    const server = await startScriptedServer(script);
    const { result, dir } = await runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot: path.join(work, "in-process"),
      agent: { moments: [], cache: false },
    });
    await server.close();
    expect(result.status, JSON.stringify(result.error)).toBe("completed");
    const decisions = readJsonl(path.join(dir, "decisions.jsonl"));
    const errorOf = (bar: number) =>
      (decisions.find((d) => d.bar === bar - 1)?.error as { type: string } | null)?.type ?? null;
    expect([errorOf(1), errorOf(2), errorOf(3), errorOf(4)]).toEqual([
      null,
      "empty_reply",
      "empty_reply",
      null,
    ]);
    const agent = (
      result.llm as { agent: { failedDecisions: number; turnErrors: Record<string, number> } }
    ).agent;
    expect(agent.failedDecisions).toBe(2);
    expect(agent.turnErrors).toEqual({ empty_reply: 2 });
  });

  it("counts toward --max-failed-decisions", async () => {
    const server = await startScriptedServer(() => ({}));
    const { result } = await runLlm({
      baseURL: server.url,
      data: [spy],
      runsRoot: path.join(work, "in-process"),
      agent: { moments: [], cache: false, maxFailedDecisions: 2 },
    });
    await server.close();
    expect(result.status).toBe("failed");
    expect(result.error?.type).toBe("max_failed_decisions");
    expect(chats(server)).toBe(2);
  });
});
