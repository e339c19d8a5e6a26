import OpenAI, { APIError } from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { type ScriptedServer, startScriptedServer } from "./scripted-openai-server.js";

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const clientFor = (s: ScriptedServer, timeout = 5_000) =>
  new OpenAI({ baseURL: s.url, apiKey: "k", maxRetries: 0, timeout });

const ask = (client: OpenAI, text = "hi") =>
  client.chat.completions.create({ model: "m1", messages: [{ role: "user", content: text }] });

describe("scripted OpenAI server", () => {
  it("answers with OpenAI-shaped completions, tool calls and usage, and records requests", async () => {
    server = await startScriptedServer([
      { content: "hello", usage: { prompt: 120, completion: 8, cached: 64 } },
      { toolCalls: [{ name: "get_account", arguments: "{not json" }] },
    ]);
    const client = clientFor(server);
    const first = await ask(client, "one");
    expect(first.choices[0]?.message.content).toBe("hello");
    expect(first.choices[0]?.finish_reason).toBe("stop");
    expect(first.model).toBe("m1");
    expect(first.usage).toMatchObject({
      prompt_tokens: 120,
      completion_tokens: 8,
      total_tokens: 128,
      prompt_tokens_details: { cached_tokens: 64 },
    });
    const second = await ask(client, "two");
    const call = second.choices[0]?.message.tool_calls?.[0];
    expect(second.choices[0]?.finish_reason).toBe("tool_calls");
    expect(call).toEqual({
      id: "call_2_1",
      type: "function",
      function: { name: "get_account", arguments: "{not json" },
    });
    expect(server.requests.map((r) => r.path)).toEqual([
      "/v1/chat/completions",
      "/v1/chat/completions",
    ]);
    expect(server.requests[1]?.body).toMatchObject({ messages: [{ content: "two" }] });
    expect(server.requests[0]?.headers.authorization).toBe("Bearer k");
  });

  it("sends faults with their status, headers and body", async () => {
    server = await startScriptedServer([
      { status: 429, headers: { "Retry-After": "7" }, body: { error: { message: "slow down" } } },
    ]);
    const err = await ask(clientFor(server)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    const apiError = err as APIError;
    expect(apiError.status).toBe(429);
    expect(apiError.headers?.get("retry-after")).toBe("7");
    expect(apiError.message).toContain("slow down");
  });

  it("fails loudly with 500 when the script runs out", async () => {
    server = await startScriptedServer([{ content: "only one" }]);
    const client = clientFor(server);
    await ask(client);
    const err = (await ask(client).catch((e: unknown) => e)) as APIError;
    expect(err.status).toBe(500);
    expect(err.message).toContain("no step for chat request #2");
  });

  it("chooses steps with a function of the request and its index", async () => {
    server = await startScriptedServer((req, index) => ({
      content: `${index}:${(req.body as { model: string }).model}`,
    }));
    const client = clientFor(server);
    expect((await ask(client)).choices[0]?.message.content).toBe("0:m1");
    expect((await ask(client)).choices[0]?.message.content).toBe("1:m1");
  });

  it("delays a step, and tracks how many requests are in flight at once", async () => {
    server = await startScriptedServer(() => ({ delayMs: 40, answer: { content: "late" } }));
    const client = clientFor(server);
    const started = performance.now();
    const answers = await Promise.all([ask(client), ask(client), ask(client)]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(35);
    expect(answers.map((a) => a.choices[0]?.message.content)).toEqual(["late", "late", "late"]);
    expect(server.maxInFlight()).toBe(3);
    expect(server.inFlight()).toBe(0);
  });

  it("enforces a requests-per-window limit with 429 + Retry-After, and counts what went over", async () => {
    server = await startScriptedServer(() => ({ content: "ok" }), {
      rateLimit: { requests: 2, windowMs: 400 },
    });
    const client = clientFor(server);
    await ask(client);
    await ask(client);
    const refused = await ask(client).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(APIError);
    expect((refused as APIError).status).toBe(429);
    const headers = (refused as APIError).headers;
    const waitMs = Number(headers?.get("retry-after-ms"));
    expect(waitMs).toBeGreaterThan(0);
    expect(waitMs).toBeLessThanOrEqual(400);
    expect(headers?.get("retry-after")).toBe("1");
    expect(server.overLimit()).toHaveLength(1);
    // Once the oldest answered request has left the window, one more is answered.
    await new Promise((r) => setTimeout(r, waitMs + 5));
    expect((await ask(client)).choices[0]?.message.content).toBe("ok");
    expect(server.overLimit()).toHaveLength(1);
    expect(server.requests).toHaveLength(4);
  });

  it("hangs until the client gives up, and still closes promptly", async () => {
    server = await startScriptedServer([{ hang: true }, { hang: true }]);
    const err = await ask(clientFor(server, 100)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(APIError);
    // A second hanging request is still open when close() is called.
    void ask(clientFor(server, 10_000)).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 20));
    const started = performance.now();
    await server.close();
    server = undefined;
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("serves embeddings (base64 as the openai client asks, or plain floats)", async () => {
    server = await startScriptedServer([], {
      embeddings: (input) => input.map((s) => [s.length, 0.5]),
    });
    const client = clientFor(server);
    const res = await client.embeddings.create({ model: "e", input: ["abc", "hello"] });
    expect(res.data.map((d) => Array.from(d.embedding))).toEqual([
      [3, 0.5],
      [5, 0.5],
    ]);
    const plain = await client.embeddings.create({
      model: "e",
      input: "ab",
      encoding_format: "float",
    });
    expect(plain.data[0]?.embedding).toEqual([2, 0.5]);
    expect(server.requests.map((r) => r.path)).toEqual(["/v1/embeddings", "/v1/embeddings"]);
  });

  it("answers 404 for embeddings without a script and for unknown routes", async () => {
    server = await startScriptedServer([]);
    const client = clientFor(server);
    const err = (await client.embeddings
      .create({ model: "e", input: "x" })
      .catch((e: unknown) => e)) as APIError;
    expect(err.status).toBe(404);
    expect(err.message).toContain("no embeddings script");
    const res = await fetch(`${server.url}/models`);
    expect(res.status).toBe(404);
  });
});
