import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { AgentEvent, RetryEvent } from "../../src/agent/agent-events.js";
import { LlmClient } from "../../src/agent/llm/llm-client.js";
import { DEFAULT_PRICE_TABLE } from "../../src/agent/llm/pricing.js";
import { readTranscript, TranscriptWriter } from "../../src/agent/llm/transcript.js";
import { UsageMeter } from "../../src/agent/llm/usage-meter.js";
import { CallStoppedError, type ChatRequest, LlmError } from "../../src/agent/types.js";
import { DEFAULT_MAX_RETRY_WAIT_MS } from "../../src/util/backoff.js";
import { cliAsync, cliRun, DATA, readJson, runDirs, tempDir } from "../helpers/cli.js";
import { readJsonl, sliceCsv } from "../helpers/llm-run.js";
import { type ScriptedServer, startScriptedServer } from "../helpers/scripted-openai-server.js";
import { waitExit, waitFor } from "../helpers/wait.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const request: ChatRequest = {
  model: "gpt-4o-mini",
  messages: [{ role: "user", content: "What now?" }],
};
const rateLimited = (seconds: number) => ({
  status: 429,
  headers: { "Retry-After": String(seconds) },
  body: { error: { message: "Rate limit reached", type: "rate_limit_error" } },
});

describe("the client's retry waits", () => {
  it("refuses a Retry-After over the cap at once, saying what was asked and what the cap is", async () => {
    server = await startScriptedServer(() => rateLimited(3600));
    const events: AgentEvent[] = [];
    const client = new LlmClient({
      baseURL: server.url,
      apiKey: "k",
      onEvent: (e) => events.push(e),
    });
    const started = performance.now();
    const err = await client.complete(request).then(
      () => null,
      (e: unknown) => e,
    );
    expect(performance.now() - started).toBeLessThan(5000);
    expect(err).toBeInstanceOf(LlmError);
    const e = err as LlmError;
    expect(e.type).toBe("retry_wait_too_long");
    expect(e.status).toBe(429);
    expect(e.message).toContain("asked to wait 3,600 s");
    expect(e.message).toContain(`${DEFAULT_MAX_RETRY_WAIT_MS / 1000} s a wait may last`);
    expect(e.message).toContain("--max-retry-wait");
    // No wait started, one request made.
    expect(events.filter((x) => x.type === "retry")).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it("announces each wait with its length and where it comes from; a backoff stays under the cap", async () => {
    server = await startScriptedServer([rateLimited(0.05), { status: 503 }, { content: "hold" }]);
    const events: AgentEvent[] = [];
    const client = new LlmClient({
      baseURL: server.url,
      apiKey: "k",
      retryBaseMs: 10_000,
      retryMaxMs: 10_000,
      maxRetryWaitMs: 60,
      random: () => 0.99,
      onEvent: (e) => events.push(e),
    });
    const res = await client.complete(request);
    expect(res.message.content).toBe("hold");
    const waits = events.filter((x): x is RetryEvent => x.type === "retry");
    expect(waits.map((w) => [w.error, w.waitFrom, w.delayMs])).toEqual([
      ["rate_limit", "server", 50],
      // The backoff would be 9,900 ms: the cap (60 ms) bounds it.
      ["server_error", "backoff", 60],
    ]);
  });

  it("stop() ends a wait at once; the cut call is neither a failure nor in the transcript", async () => {
    server = await startScriptedServer(() => rateLimited(100));
    const meter = new UsageMeter(DEFAULT_PRICE_TABLE);
    const file = path.join(work, "transcript-stop.jsonl");
    const transcript = new TranscriptWriter(file);
    let waiting = false;
    const client = new LlmClient({
      baseURL: server.url,
      apiKey: "k",
      meter,
      transcript,
      onEvent: (e) => {
        if (e.type === "retry") waiting = true;
      },
    });
    const call = client.complete(request).then(
      () => null,
      (e: unknown) => e,
    );
    await waitFor(() => waiting, 10_000);
    const stoppedAt = performance.now();
    client.stop();
    const err = await call;
    expect(performance.now() - stoppedAt).toBeLessThan(1000);
    expect(err).toBeInstanceOf(CallStoppedError);
    expect(meter.snapshot().calls).toMatchObject({ total: 0, failed: 0 });
    expect(fs.existsSync(file) ? readTranscript(file) : []).toEqual([]);
    // A later call does not reach the server.
    await expect(client.complete(request)).rejects.toBeInstanceOf(CallStoppedError);
    expect(server.requests).toHaveLength(1);
  });

  it("stop() cuts a request the server is still answering", async () => {
    server = await startScriptedServer([{ hang: true }]);
    const client = new LlmClient({ baseURL: server.url, apiKey: "k", timeoutMs: 60_000 });
    const call = client.complete(request).then(
      () => null,
      (e: unknown) => e,
    );
    await waitFor(() => server?.inFlight() === 1, 10_000);
    const stoppedAt = performance.now();
    client.stop();
    expect(await call).toBeInstanceOf(CallStoppedError);
    expect(performance.now() - stoppedAt).toBeLessThan(1000);
  });
});

describe("a run and its waits", () => {
  const spy = sliceCsv(path.join(DATA, "SPY_D.csv"), 12, work, "SPY.csv");
  const args = (runs: string, url: string, extra: string[] = []) => [
    "run",
    "--prompt",
    "Trade SPY.",
    "--data",
    spy,
    "--base-url",
    url,
    "--model",
    "gpt-4o-mini",
    "--no-cache",
    "--moments",
    "none",
    "--runs-dir",
    runs,
    "--no-ui",
    ...extra,
  ];

  it("shows a wait as it starts, SIGTERM ends it at once (interrupted), and resume asks again", async () => {
    let limited = true;
    server = await startScriptedServer(() => (limited ? rateLimited(100) : { content: "hold" }));
    const runs = path.join(work, "runs-sigterm");
    const child = cliAsync(args(runs, server.url), work, { ...process.env, OPENAI_API_KEY: "k" });
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    await waitFor(() => stderr.includes("waiting 100 s (as the server asked)"), 30_000);
    expect(stderr).toMatch(
      /waiting 100 s \(as the server asked\) to retry gpt-4o-mini after rate_limit on attempt 1/,
    );
    const sentAt = performance.now();
    child.kill("SIGTERM");
    const code = await waitExit(child);
    const exitMs = performance.now() - sentAt;
    // The first SIGTERM waited out the whole Retry-After before; a loaded machine still needs
    // well under this to write the run.
    expect(exitMs).toBeLessThan(10_000);
    expect(code).toBe(1);
    const [dir] = runDirs(runs);
    const result = readJson<{ status: string; llm: { usage: { calls: { failed: number } } } }>(
      path.join(dir as string, "result.json"),
    );
    expect(result.status).toBe("interrupted");
    expect(result.llm.usage.calls.failed).toBe(0);
    const decisions = readJsonl(path.join(dir as string, "decisions.jsonl"));
    expect(decisions.at(-1)?.error).toMatchObject({ type: "interrupted" });
    console.log(`SIGTERM during a 100 s wait: exit ${Math.round(exitMs)} ms after the signal`);

    // The cut bar was not checkpointed: resume asks its question again, and the run completes.
    limited = false;
    const env = { ...process.env, OPENAI_API_KEY: "k" };
    const resumed = await cliRun(["resume", dir as string, "--json", "-q"], work, env);
    expect(resumed.stderr).toBe("");
    expect(resumed.status).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: "completed", period: { bars: 12 } });
    const after = readJsonl(path.join(dir as string, "decisions.jsonl"));
    expect(after.filter((d) => d.error !== null && d.error !== undefined)).toEqual([]);
  }, 60_000);

  it("refuses a --max-retry-wait out of range before any run directory exists (exit 2)", async () => {
    const runs = path.join(work, "runs-bad-cap");
    for (const bad of ["-5", "abc", "100000"]) {
      const r = await cliRun(args(runs, "http://127.0.0.1:9/v1", ["--max-retry-wait", bad]), work);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain("--max-retry-wait");
    }
    expect(runDirs(runs)).toEqual([]);
  });

  it("a Retry-After over the cap ends the run interrupted, and resume goes on once the wait is over", async () => {
    let limited = true;
    server = await startScriptedServer(() => (limited ? rateLimited(3600) : { content: "hold" }));
    const runs = path.join(work, "runs-over-cap");
    const env = { ...process.env, OPENAI_API_KEY: "k" };
    const started = performance.now();
    const r = await cliRun(args(runs, server.url, ["--max-retry-wait", "60"]), work, env);
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(r.status).toBe(1);
    const [dir] = runDirs(runs);
    const result = readJson<{
      status: string;
      stopReason: string;
      error: unknown;
      llm: { usage: { errors: Record<string, number> } };
    }>(path.join(dir as string, "result.json"));
    expect(result.status).toBe("interrupted");
    expect(result.error).toBeNull();
    expect(result.stopReason).toContain("asked to wait 3,600 s");
    expect(result.stopReason).toContain("60 s a wait may last (--max-retry-wait)");
    expect(result.stopReason).toContain("agenticbt resume");
    expect(result.llm.usage.errors).toEqual({ retry_wait_too_long: 1 });
    expect(r.stdout).toContain("Status: interrupted (");
    // Only the one refused request: no call after the server said to wait.
    expect(server.requests).toHaveLength(1);

    limited = false;
    const resumed = await cliRun(["resume", dir as string, "--json", "-q"], work, env);
    expect(resumed.stderr).toBe("");
    expect(resumed.status).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: "completed", period: { bars: 12 } });
  }, 60_000);
});
