import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LlmClient, type LlmClientOptions } from "../../../src/agent/llm/llm-client.js";
import { DEFAULT_PRICE_TABLE } from "../../../src/agent/llm/pricing.js";
import { ProviderLimiter } from "../../../src/agent/llm/provider-limiter.js";
import { cacheKey, ResponseCache } from "../../../src/agent/llm/response-cache.js";
import { readTranscript, TranscriptWriter } from "../../../src/agent/llm/transcript.js";
import { UsageMeter } from "../../../src/agent/llm/usage-meter.js";
import { type ChatRequest, LlmError } from "../../../src/agent/types.js";
import {
  type Script,
  type ScriptedServer,
  startScriptedServer,
} from "../../helpers/scripted-openai-server.js";

const SECRET = "sk-test-SECRET123";

let server: ScriptedServer | undefined;
let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "abt-llm-client-"));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  fs.rmSync(dir, { recursive: true, force: true });
});

const request = (text = "What now?"): ChatRequest => ({
  model: "gpt-4o-mini",
  messages: [
    { role: "system", content: "You trade." },
    { role: "user", content: text },
  ],
  temperature: 0,
});

/** A client on a fresh scripted server, with test-sized delays. */
async function setUp(script: Script, options: LlmClientOptions = {}): Promise<LlmClient> {
  server = await startScriptedServer(script);
  return new LlmClient({
    baseURL: server.url,
    apiKey: SECRET,
    retryBaseMs: 5,
    retryMaxMs: 20,
    ...options,
  });
}

const failure = (p: Promise<unknown>): Promise<LlmError> =>
  p.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (err: unknown) => {
      expect(err).toBeInstanceOf(LlmError);
      return err as LlmError;
    },
  );

describe("LlmClient over real HTTP", () => {
  it("answers with the message, finish reason, usage (cached tokens included) and its hash", async () => {
    const client = await setUp([
      {
        content: "buy",
        toolCalls: [{ name: "place_order", arguments: '{"side":"buy"}' }],
        usage: { prompt: 1200, completion: 30, cached: 1024 },
      },
    ]);
    const res = await client.complete(request());
    expect(res.message.content).toBe("buy");
    expect(res.message.tool_calls?.[0]).toMatchObject({
      type: "function",
      function: { name: "place_order", arguments: '{"side":"buy"}' },
    });
    expect(res.finishReason).toBe("tool_calls");
    expect(res.usage).toEqual({ prompt: 1200, completion: 30, cached: 1024 });
    expect(res).toMatchObject({ source: "network", attempts: 1 });
    expect(res.requestHash).toMatch(/^[0-9a-f]{64}$/);
    expect(server?.requests[0]?.body).toEqual({
      model: "gpt-4o-mini",
      messages: request().messages,
      temperature: 0,
    });
  });

  it("marks usage unknown (not 0) when the server leaves it out", async () => {
    const client = await setUp([
      { content: "a", usage: null },
      {
        status: 200,
        body: {
          choices: [
            { index: 0, message: { role: "assistant", content: "b" }, finish_reason: "stop" },
          ],
          usage: { prompt_tokens: 9, completion_tokens: 2 },
        },
      },
    ]);
    expect((await client.complete(request("1"))).usage).toEqual({
      prompt: 0,
      completion: 0,
      cached: 0,
      unknown: true,
    });
    expect((await client.complete(request("2"))).usage).toEqual({
      prompt: 9,
      completion: 2,
      cached: 0,
    });
  });

  it("refuses token counts no call can have, naming the field, and bills nothing", async () => {
    const cases = [
      { usage: { prompt: 10, completion: 1e308 }, field: "usage.completion_tokens is 1e+308" },
      { usage: { prompt: -5, completion: 1 }, field: "usage.prompt_tokens is -5" },
      { usage: { prompt: 5, completion: 1, cached: 2e9 }, field: "cached_tokens is 2000000000" },
    ];
    server = await startScriptedServer(cases.map((c) => ({ content: "hold", usage: c.usage })));
    const meter = new UsageMeter(DEFAULT_PRICE_TABLE);
    const client = new LlmClient({ baseURL: server.url, apiKey: SECRET, meter, maxRetries: 3 });
    for (const [i, c] of cases.entries()) {
      const err = await failure(client.complete(request(String(i))));
      expect(err.type).toBe("invalid_response");
      expect(err.message).toContain(c.field);
      expect(err.message).toContain("not a token count");
    }
    // Not retried: the same server would count the same way.
    expect(server.requests).toHaveLength(cases.length);
    const s = meter.snapshot();
    expect(s.calls.failed).toBe(cases.length);
    expect(s.billedTokens).toEqual({ prompt: 0, completion: 0, cached: 0 });
    expect(s.cost).toEqual({ usd: 0, reason: null });
  });

  it("sends maxTokens, seed and tools in the provider's names", async () => {
    const client = await setUp([{ content: "ok" }]);
    const tools = [
      {
        type: "function" as const,
        function: { name: "get_account", parameters: { type: "object" } },
      },
    ];
    await client.complete({ ...request(), maxTokens: 300, seed: 7, tools });
    expect(server?.requests[0]?.body).toMatchObject({ max_tokens: 300, seed: 7, tools });
  });

  it("retries a 429 after the Retry-After wait, then succeeds", async () => {
    const client = await setUp([
      {
        status: 429,
        headers: { "Retry-After": "0" },
        body: { error: { message: "rate limited" } },
      },
      { content: "ok" },
    ]);
    const res = await client.complete(request());
    expect(res.attempts).toBe(2);
    expect(res.message.content).toBe("ok");
    expect(server?.requests).toHaveLength(2);
  });

  it("honours a Retry-After longer than the backoff", async () => {
    const client = await setUp(
      [{ status: 503, headers: { "retry-after-ms": "120" } }, { content: "ok" }],
      { retryBaseMs: 1, retryMaxMs: 1 },
    );
    const started = performance.now();
    await client.complete(request());
    expect(performance.now() - started).toBeGreaterThanOrEqual(110);
  });

  it("retries a 500, then succeeds", async () => {
    const client = await setUp([
      { status: 500, body: { error: { message: "boom" } } },
      { content: "ok" },
    ]);
    const res = await client.complete(request());
    expect(res).toMatchObject({ attempts: 2, source: "network" });
    expect(server?.requests).toHaveLength(2);
  });

  it("gives up after maxRetries on repeated 5xx with a server_error", async () => {
    const client = await setUp(() => ({ status: 502 }), { maxRetries: 2 });
    const err = await failure(client.complete(request()));
    expect(err).toMatchObject({ type: "server_error", status: 502, attempts: 3 });
    expect(err.message).toContain("3 attempts");
    expect(server?.requests).toHaveLength(3);
  });

  it("counts in retries only the faults that a retry overcame; the rest are failures", async () => {
    // Call 1: 500, 500 with one retry: the retry did not overcome the fault, so it is 1 failure
    // and 0 retries. Call 2: 500 then an answer: 1 retried server_error. Call 3: 429, 500, then an
    // answer (two retries allowed here): 1 rate_limit and 1 more server_error overcome.
    const meter = new UsageMeter(DEFAULT_PRICE_TABLE);
    const steps = [{ status: 500 }, { status: 500 }, { status: 500 }, { content: "ok" }];
    const client = await setUp(steps, { maxRetries: 1, meter });
    await failure(client.complete(request("call 1")));
    await client.complete(request("call 2"));
    const after2 = meter.snapshot();
    expect(after2.retries).toEqual({ server_error: 1 });
    expect(after2.errors).toEqual({ server_error: 1 });
    await server?.close();
    const client3 = await setUp(
      [{ status: 429, headers: { "Retry-After": "0" } }, { status: 500 }, { content: "ok" }],
      { maxRetries: 2, meter },
    );
    const res = await client3.complete(request("call 3"));
    expect(res.attempts).toBe(3);
    const snap = meter.snapshot();
    expect(snap.retries).toEqual({ server_error: 2, rate_limit: 1 });
    expect(snap.errors).toEqual({ server_error: 1 });
    expect(snap.calls).toMatchObject({ total: 3, network: 3, failed: 1 });
  });

  it("times out a hanging server, retries, and fails with a timeout", async () => {
    const client = await setUp(() => ({ hang: true }), { timeoutMs: 200, maxRetries: 1 });
    const started = performance.now();
    const err = await failure(client.complete(request()));
    expect(err).toMatchObject({ type: "timeout", attempts: 2 });
    expect(err.message).toContain("within 200 ms");
    expect(server?.requests).toHaveLength(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
  });

  it("times out a server that sends headers but never finishes the body", async () => {
    // Our own deadline covers the body, which the openai client's timeout does not.
    const client = await setUp([{ delayMs: 1_000, answer: { content: "too late" } }], {
      timeoutMs: 100,
      maxRetries: 0,
    });
    const err = await failure(client.complete(request()));
    expect(err.type).toBe("timeout");
  });

  it("reports a refused connection as unreachable after a few quick retries", async () => {
    server = await startScriptedServer([]);
    const url = server.url;
    await server.close();
    server = undefined;
    const client = new LlmClient({ baseURL: url, apiKey: SECRET, retryBaseMs: 1, maxRetries: 1 });
    const err = await failure(client.complete(request()));
    expect(err).toMatchObject({ type: "unreachable", attempts: 2 });
    expect(err.message).toContain("--base-url");
    expect(err.message).toContain("ECONNREFUSED");
    // --max-retries 20 and a 20 s backoff do not apply: at most 2 retries, waits ≤ 250 + 500 ms.
    const patient = new LlmClient({ baseURL: url, maxRetries: 20, retryBaseMs: 20_000 });
    const started = performance.now();
    const again = await failure(patient.complete(request()));
    expect(again).toMatchObject({ type: "unreachable", attempts: 3 });
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("reports a 404 naming the model as model_not_found, with the fix", async () => {
    const client = await setUp(() => ({
      status: 404,
      body: { error: { message: 'model "qwen9" not found, try pulling it first' } },
    }));
    const err = await failure(client.complete({ ...request(), model: "qwen9" }));
    expect(err).toMatchObject({ type: "model_not_found", status: 404, attempts: 1 });
    expect(err.message).toMatch(/check --model/i);
  });

  it("does not retry a 401, and says what to do", async () => {
    const client = await setUp(() => ({ status: 401, body: { error: { message: "bad key" } } }));
    const err = await failure(client.complete(request()));
    expect(err).toMatchObject({ type: "auth", status: 401, attempts: 1 });
    expect(err.message).toContain("OPENAI_API_KEY");
    expect(server?.requests).toHaveLength(1);
  });

  it.each([
    [400, "bad_request"],
    [404, "not_found"],
    [403, "auth"],
  ] as const)("does not retry a %i (%s)", async (status, type) => {
    const client = await setUp(() => ({ status }));
    const err = await failure(client.complete(request()));
    expect(err.type).toBe(type);
    expect(server?.requests).toHaveLength(1);
  });

  it.each([
    ["no choices", { status: 200, body: { id: "x", choices: [] } }],
    ["a body that is not JSON", { status: 200, body: "<html>proxy page</html>" }],
  ])("reports a 200 with %s as invalid_response, without retrying", async (_, step) => {
    const client = await setUp([step]);
    const err = await failure(client.complete(request()));
    expect(err.type).toBe("invalid_response");
    expect(server?.requests).toHaveLength(1);
  });

  it("draws every backoff wait from the jitter source", async () => {
    let draws = 0;
    const client = await setUp(
      [{ status: 500 }, { status: 500 }, { status: 500 }, { content: "ok" }],
      {
        // Without jitter each wait would be ≥ 1 s; random() = 0 makes each one 0 ms.
        retryBaseMs: 1_000,
        retryMaxMs: 1_000,
        random: () => {
          draws += 1;
          return 0;
        },
      },
    );
    const started = performance.now();
    const res = await client.complete(request());
    expect(performance.now() - started).toBeLessThan(900);
    expect(res.attempts).toBe(4);
    expect(draws).toBe(3);
  });

  it("keeps at most `concurrency` calls in flight", async () => {
    const client = await setUp(() => ({ delayMs: 50, answer: { content: "ok" } }), {
      concurrency: 2,
    });
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => client.complete(request(`call ${i}`))),
    );
    expect(answers).toHaveLength(6);
    expect(server?.requests).toHaveLength(6);
    expect(server?.maxInFlight()).toBe(2);
  });

  it("shares its provider's limiter: a Retry-After to one client holds the other back", async () => {
    const arrivals: number[] = [];
    await setUp((_req, index) => {
      arrivals.push(Date.now());
      return index === 0
        ? { status: 429, headers: { "retry-after-ms": "400" } }
        : { content: "ok" };
    });
    const limiter = new ProviderLimiter({ concurrency: 4, rpm: null, tpm: null, windowMs: 60_000 });
    const clientFor = () =>
      new LlmClient({ baseURL: server?.url, apiKey: SECRET, maxRetries: 1, limiter });
    const first = clientFor().complete(request("first"));
    // The second client asks once the 429 has come back to the first.
    while (limiter.snapshot().pausedUntil === null) await new Promise((r) => setTimeout(r, 5));
    const asked = Date.now();
    const [a, b] = await Promise.all([first, clientFor().complete(request("second"))]);
    expect([a.attempts, b.attempts]).toEqual([2, 1]);
    expect(arrivals).toHaveLength(3);
    // Neither call reached the server before the 400 ms were over.
    for (const at of arrivals.slice(1))
      expect(at - (arrivals[0] as number)).toBeGreaterThanOrEqual(390);
    expect(Date.now() - asked).toBeGreaterThan(300);
  });

  it("counts a call's billed tokens against the provider's tokens per minute", async () => {
    await setUp(() => ({ content: "ok", usage: { prompt: 80, completion: 10 } }));
    // 100 tokens in any 300 ms: a 90-token call leaves no room for the next until it ages out.
    const limiter = new ProviderLimiter({ concurrency: 4, rpm: null, tpm: 20_000, windowMs: 300 });
    const client = new LlmClient({ baseURL: server?.url, apiKey: SECRET, limiter });
    await client.complete(request("one"));
    const firstDone = performance.now();
    await client.complete(request("two"));
    expect(performance.now() - firstDone).toBeGreaterThanOrEqual(290);
  });

  it("answers an identical request from the cache without the network", async () => {
    const cache = new ResponseCache(path.join(dir, "cache"));
    const client = await setUp([{ content: "once", usage: { prompt: 50, completion: 5 } }], {
      cache,
      maxRetries: 0,
    });
    const first = await client.complete(request());
    const second = await client.complete(request());
    expect(server?.requests).toHaveLength(1);
    expect(first.source).toBe("network");
    expect(second).toMatchObject({ source: "cache", latencyMs: 0, attempts: 0 });
    expect(second.message).toEqual(first.message);
    expect(second.usage).toEqual(first.usage);
    expect(second.requestHash).toBe(first.requestHash);
    const h = cacheKey(server?.url ?? "", request());
    expect(fs.existsSync(path.join(dir, "cache", h.slice(0, 2), `${h}.json`))).toBe(true);
    // A different request is a different key.
    await failure(client.complete(request("something else")));
    expect(server?.requests).toHaveLength(2);
  });

  it("never serves one server's answers for another with the same model name", async () => {
    const cacheDir = path.join(dir, "shared-cache");
    const a = await startScriptedServer(() => ({ content: "from A" }));
    const b = await startScriptedServer(() => ({ content: "from B" }));
    try {
      const ask = (baseURL: string) =>
        new LlmClient({ baseURL, maxRetries: 0, cache: new ResponseCache(cacheDir) }).complete(
          request(),
        );
      expect((await ask(a.url)).message.content).toBe("from A");
      const fromB = await ask(b.url);
      expect(fromB).toMatchObject({ source: "network", message: { content: "from B" } });
      // The same server spelled differently (case, trailing slash) is the same cache entry.
      const port = new URL(a.url).port;
      const again = await ask(`HTTP://127.0.0.1:${port}/v1/`);
      expect(again).toMatchObject({ source: "cache", message: { content: "from A" } });
      expect(a.requests).toHaveLength(1);
      expect(b.requests).toHaveLength(1);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("records every call, success or failure, in the transcript", async () => {
    const file = path.join(dir, "run", "transcript.jsonl");
    const client = await setUp(
      [
        { status: 429, headers: { "Retry-After": "0" } },
        { content: "ok", usage: { prompt: 10, completion: 2, cached: 4 } },
        { status: 400, body: { error: { message: "bad tool schema" } } },
      ],
      { transcript: new TranscriptWriter(file) },
    );
    await client.complete(request("a"));
    await failure(client.complete(request("b")));
    const entries = readTranscript(file);
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({
      seq: 1,
      response: { message: { content: "ok" }, finishReason: "stop" },
      error: null,
      usage: { prompt: 10, completion: 2, cached: 4 },
      attempts: 2,
      source: "network",
    });
    expect(entries[0]?.request.messages[1]).toEqual({ role: "user", content: "a" });
    expect(entries[1]).toMatchObject({
      seq: 2,
      response: null,
      error: { type: "bad_request", status: 400 },
      attempts: 1,
    });
    expect(entries[1]?.error?.message).toContain("bad tool schema");
  });

  it("uses its default model for requests without one, and refuses when there is none", async () => {
    const client = await setUp([{ content: "ok" }], { model: "llama3.1" });
    await client.complete({ ...request(), model: "" });
    expect(server?.requests[0]?.body).toMatchObject({ model: "llama3.1" });
    const bare = new LlmClient({ baseURL: server?.url, apiKey: SECRET });
    const err = await failure(bare.complete({ ...request(), model: "" }));
    expect(err.type).toBe("bad_request");
    expect(err.message).toContain("--model");
  });
});

describe("the API key", () => {
  it("never appears in error messages, the transcript or the cache", async () => {
    const echo = { error: { message: `Incorrect API key provided: ${SECRET}` } };
    const file = path.join(dir, "transcript.jsonl");
    const cacheDir = path.join(dir, "cache");
    const client = await setUp(
      [
        { content: "fine" },
        { status: 401, body: echo },
        { status: 500, body: echo },
        { status: 500, body: echo },
        { status: 400, body: echo },
      ],
      { transcript: new TranscriptWriter(file), cache: new ResponseCache(cacheDir), maxRetries: 1 },
    );
    await client.complete(request("ok"));
    const errors = [
      await failure(client.complete(request("auth"))),
      await failure(client.complete(request("server"))),
      await failure(client.complete(request("bad"))),
    ];
    expect(errors.map((e) => e.type)).toEqual(["auth", "server_error", "bad_request"]);
    // The key did reach the server (so the test would see a leak), but nowhere else.
    expect(server?.requests[0]?.headers.authorization).toBe(`Bearer ${SECRET}`);
    for (const e of errors) {
      expect(e.message).not.toContain(SECRET);
      expect(e.message).toContain("Incorrect API key provided: [redacted]");
      expect(String(e.stack)).not.toContain(SECRET);
    }
    const written = [file, ...listFiles(cacheDir)].map((f) => fs.readFileSync(f, "utf8"));
    expect(written.length).toBeGreaterThanOrEqual(2);
    for (const text of written) expect(text).not.toContain(SECRET);
  });
});

function listFiles(root: string): string[] {
  return fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.join(d.parentPath, d.name));
}
