/**
 * A scripted OpenAI-compatible HTTP server for tests: the real `openai` client talks real HTTP to
 * it on 127.0.0.1, and each chat completion request is answered by the next step of a script
 * (a reply, an HTTP fault, a hang, or a delay before another step). Every request is recorded so
 * a test can assert what reached the "provider" (and how many times).
 *
 * ```ts
 * const server = await startScriptedServer([
 *   { status: 429, headers: { "Retry-After": "0" } },
 *   { content: "hold", usage: { prompt: 100, completion: 7, cached: 64 } },
 * ]);
 * const client = new OpenAI({ baseURL: server.url, apiKey: "k" });
 * ...
 * await server.close();
 * ```
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

/** What the server received. `body` is the parsed JSON (null when the body was not JSON). */
export interface RecordedRequest {
  method: string;
  path: string;
  /** Header names lower-cased, as Node delivers them. */
  headers: Record<string, string>;
  body: unknown;
}

export interface ScriptedToolCall {
  name: string;
  /** Raw JSON text of the arguments, sent as is: may be deliberately malformed. */
  arguments: string;
  /** Defaults to `call_<request>_<position>`. */
  id?: string;
}

/** A successful chat completion. */
export interface ReplyStep {
  content?: string;
  toolCalls?: ScriptedToolCall[];
  /** Token counts (defaults 10 prompt, 5 completion, 0 cached); `null` omits `usage` entirely. */
  usage?: { prompt?: number; completion?: number; cached?: number } | null;
  /** Defaults to "tool_calls" when there are tool calls, else "stop". */
  finishReason?: string;
}

/**
 * Any other HTTP answer: 429/500/401… with optional headers (`Retry-After`) and body. A string
 * body is sent verbatim (for malformed JSON); anything else is sent as JSON. A 200 fault is a way
 * to send a chat completion the helper would not build (no choices, no usage details).
 */
export interface FaultStep {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** Never answers (until the client gives up or the server closes): for timeout tests. */
export interface HangStep {
  hang: true;
}

/**
 * Waits, then answers with `answer`. (Not `then`: an object with a `then` property is a thenable,
 * and a step returned from an async script function would be awaited into nonsense.)
 */
export interface DelayStep {
  delayMs: number;
  answer: Step;
}

export type Step = ReplyStep | FaultStep | HangStep | DelayStep;

/** Steps consumed in order, or a function choosing the step for the `index`-th chat request. */
export type Script = readonly Step[] | ((req: RecordedRequest, index: number) => Step);

export interface ScriptedServerOptions {
  /**
   * Answers `POST /v1/embeddings`: one vector per input string, or a fault to send instead.
   * `index` counts embeddings requests from 0. Absent: such requests get 404.
   */
  embeddings?: (input: string[], index: number) => number[][] | EmbeddingsFault;
  /**
   * A provider's requests-per-minute limit: at most `requests` chat requests answered in any
   * `windowMs` (60000 for a minute; 1000 with `requests: 1` is 60 a minute enforced per second,
   * as providers slice their minute). A request over it gets 429 with `Retry-After` (seconds,
   * rounded up) and `retry-after-ms` (until the oldest answered request leaves the window), is
   * counted (`overLimit`) and uses no step of the script.
   */
  rateLimit?: { requests: number; windowMs: number };
}

/** An HTTP error answer to an embeddings request (e.g. 429 with Retry-After, 500). */
export interface EmbeddingsFault {
  status: number;
  headers?: Record<string, string>;
  message?: string;
}

export interface ScriptedServer {
  /** Base URL ending in `/v1`, ready for `new OpenAI({ baseURL })`. */
  url: string;
  /** Every request received, in arrival order (chat completions, embeddings, anything else). */
  requests: RecordedRequest[];
  /** Chat completion requests being answered right now. */
  inFlight(): number;
  /** The most chat completion requests that were ever being answered at once. */
  maxInFlight(): number;
  /** When each chat request over `rateLimit` arrived (Date.now()), in order: each got a 429. */
  overLimit(): readonly number[];
  /** Stops the server, cutting hanging and delayed requests. */
  close(): Promise<void>;
}

/** Chat completion `created` timestamp: fixed, so recorded answers are byte-stable. */
const CREATED = 1_700_000_000;

export async function startScriptedServer(
  script: Script,
  options: ScriptedServerOptions = {},
): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let chatIndex = 0;
  let embeddingsIndex = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let closed = false;
  /** Arrival times of the chat requests answered within the rate limit, oldest first. */
  const answeredAt: number[] = [];
  const overLimit: number[] = [];

  const nextStep = (req: RecordedRequest, index: number): Step | undefined =>
    typeof script === "function" ? script(req, index) : script[index];

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  const answer = async (
    step: Step,
    req: RecordedRequest,
    index: number,
    res: http.ServerResponse,
  ) => {
    if ("hang" in step) {
      // Keep the socket open and never write: close() destroys it.
      await new Promise<void>((resolve) => res.on("close", resolve));
      return;
    }
    if ("delayMs" in step) {
      await wait(step.delayMs);
      if (closed) return;
      await answer(step.answer, req, index, res);
      return;
    }
    if ("status" in step) {
      send(res, step.status, step.body, step.headers);
      return;
    }
    send(res, 200, chatCompletion(step, req, index));
  };

  const server = http.createServer((incoming, res) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const req: RecordedRequest = {
        method: incoming.method ?? "GET",
        path: (incoming.url ?? "/").split("?")[0] ?? "/",
        headers: flattenHeaders(incoming.headers),
        body: parseJson(text),
      };
      requests.push(req);
      void route(req, res).catch((err: unknown) => {
        if (!res.headersSent) send(res, 500, { error: { message: `scripted server: ${err}` } });
      });
    });
  });

  const route = async (req: RecordedRequest, res: http.ServerResponse) => {
    if (req.method === "POST" && req.path === "/v1/chat/completions") {
      const limit = options.rateLimit;
      if (limit !== undefined) {
        const now = Date.now();
        while (answeredAt.length > 0 && (answeredAt[0] as number) <= now - limit.windowMs)
          answeredAt.shift();
        if (answeredAt.length >= limit.requests) {
          overLimit.push(now);
          const waitMs = (answeredAt[0] as number) + limit.windowMs - now;
          send(
            res,
            429,
            { error: { message: "Rate limit reached for requests", type: "requests" } },
            { "retry-after": String(Math.ceil(waitMs / 1000)), "retry-after-ms": String(waitMs) },
          );
          return;
        }
        answeredAt.push(now);
      }
      const index = chatIndex++;
      const step = nextStep(req, index);
      if (step === undefined) {
        const message = `scripted server: the script has no step for chat request #${index + 1} (it has ${
          Array.isArray(script) ? script.length : "?"
        } steps); the code under test made more model calls than the test expected`;
        send(res, 500, { error: { message, type: "script_exhausted" } });
        return;
      }
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        await answer(step, req, index, res);
      } finally {
        inFlight -= 1;
      }
      return;
    }
    if (req.method === "POST" && req.path === "/v1/embeddings") {
      sendEmbeddings(req, res, options.embeddings, embeddingsIndex++);
      return;
    }
    send(res, 404, {
      error: { message: `scripted server: no route for ${req.method} ${req.path}` },
    });
  };

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    overLimit: () => overLimit,
    close: () => {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      // Hanging requests hold their sockets open; without this, close() would wait for them.
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) =>
        server.close((err) => (err ? reject(err) : resolve())),
      );
    },
  };
}

/** Builds the OpenAI-shaped chat completion body for a reply step. */
function chatCompletion(step: ReplyStep, req: RecordedRequest, index: number): unknown {
  const n = index + 1;
  const toolCalls = (step.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_${n}_${i + 1}`,
    type: "function",
    function: { name: call.name, arguments: call.arguments },
  }));
  const message: Record<string, unknown> = {
    role: "assistant",
    content: step.content ?? null,
    refusal: null,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const body: Record<string, unknown> = {
    id: `chatcmpl-scripted-${n}`,
    object: "chat.completion",
    created: CREATED,
    model: requestedModel(req),
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: step.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
      },
    ],
  };
  if (step.usage !== null) {
    const prompt = step.usage?.prompt ?? 10;
    const completion = step.usage?.completion ?? 5;
    body.usage = {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      prompt_tokens_details: { cached_tokens: step.usage?.cached ?? 0 },
    };
  }
  return body;
}

function sendEmbeddings(
  req: RecordedRequest,
  res: http.ServerResponse,
  embed: ScriptedServerOptions["embeddings"],
  index: number,
): void {
  if (!embed) {
    send(res, 404, {
      error: { message: "scripted server: no embeddings script was given to startScriptedServer" },
    });
    return;
  }
  const body = (req.body ?? {}) as { input?: unknown; encoding_format?: unknown };
  const input = typeof body.input === "string" ? [body.input] : body.input;
  if (!Array.isArray(input) || !input.every((s) => typeof s === "string")) {
    send(res, 400, { error: { message: "scripted server: input must be a string or string[]" } });
    return;
  }
  const vectors = embed(input, index);
  if (!Array.isArray(vectors)) {
    send(
      res,
      vectors.status,
      { error: { message: vectors.message ?? `scripted fault ${vectors.status}` } },
      vectors.headers,
    );
    return;
  }
  // The openai client asks for base64 (little-endian float32) unless told otherwise, and decodes it.
  const encode = (v: number[]) =>
    body.encoding_format === "base64"
      ? Buffer.from(new Float32Array(v).buffer).toString("base64")
      : v;
  send(res, 200, {
    object: "list",
    model: requestedModel(req),
    data: vectors.map((v, index) => ({ object: "embedding", index, embedding: encode(v) })),
    usage: { prompt_tokens: input.length, total_tokens: input.length },
  });
}

function send(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const isText = typeof body === "string";
  const payload = isText ? body : body === undefined ? "" : JSON.stringify(body);
  res.writeHead(status, {
    "content-type": isText ? "text/plain" : "application/json",
    "content-length": Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}

function requestedModel(req: RecordedRequest): string {
  const model = (req.body as { model?: unknown } | null)?.model;
  return typeof model === "string" ? model : "scripted-model";
}

function parseJson(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}
