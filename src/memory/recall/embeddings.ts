import { backoffDelayMs, retryAfterMs } from "../../util/backoff.js";
import { RecallEmbeddingError } from "./recall-errors.js";

/** An OpenAI-compatible embeddings endpoint: POST `<baseURL>/embeddings`. */
export interface EmbeddingsConfig {
  model: string;
  /** E.g. "https://api.openai.com/v1" (the path `/embeddings` is appended). */
  baseURL: string;
  apiKey?: string;
  /** Expected vector length; any other length is an error. Not sent to the provider. */
  dimensions?: number;
  /** Texts per request (default 64). */
  batchSize?: number;
  /** Per request (default 30 000 ms). */
  timeoutMs?: number;
  /**
   * Never call the endpoint: every vector must already be in the index (seeded from a recorded
   * run). Used by `--replay`, which makes no network calls; a missing vector is a divergence.
   */
  offline?: boolean;
  /** Retries of a 429, a 5xx, a timeout or a dropped connection (default 3). */
  maxRetries?: number;
  /** Backoff scale of the first retry (default 500 ms; doubles, capped at 8 s, full jitter). */
  backoffBaseMs?: number;
}

export interface Embedder {
  readonly model: string;
  readonly baseURL: string;
  /** One unit-length vector per text (a zero vector stays zero: it is similar to nothing). */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

const DEFAULT_BATCH = 64;
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 3;
const DEFAULT_BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 8_000;

/** Talks to the endpoint with plain fetch: one dependency less, and errors stay in our words. */
export function httpEmbedder(config: EmbeddingsConfig): Embedder {
  if (config.model.trim() === "" || config.baseURL.trim() === "") {
    throw new RecallEmbeddingError(
      "Embeddings need a model and a baseURL (an OpenAI-compatible endpoint such as " +
        "https://api.openai.com/v1); set both, or drop the embeddings option for keyword recall.",
    );
  }
  const url = `${config.baseURL.replace(/\/+$/, "")}/embeddings`;
  if (config.offline === true) return offlineEmbedder(config.model, config.baseURL);
  const batchSize = Math.max(1, Math.floor(config.batchSize ?? DEFAULT_BATCH));
  const fail = (what: string): RecallEmbeddingError =>
    new RecallEmbeddingError(
      redact(
        `Embeddings from ${url} (model ${config.model}) failed: ${what}. Check baseURL, model ` +
          "and apiKey, or remove the embeddings option to recall by keywords only.",
        config.apiKey,
      ),
    );

  const maxRetries = Math.max(0, Math.floor(config.maxRetries ?? DEFAULT_MAX_RETRIES));
  const backoff = {
    baseMs: config.backoffBaseMs ?? DEFAULT_BACKOFF_BASE_MS,
    maxMs: BACKOFF_MAX_MS,
  };
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (config.apiKey !== undefined && config.apiKey !== "") {
    headers.authorization = `Bearer ${config.apiKey}`;
  }

  /** One attempt: vectors, or a failure saying whether another attempt may succeed. */
  const attempt = async (input: readonly string[]): Promise<Attempt> => {
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        headers,
        body: JSON.stringify({ model: config.model, input, encoding_format: "float" }),
        signal: AbortSignal.timeout(config.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch (err) {
      return {
        retry: true,
        waitMs: null,
        what: `the request did not complete (${describe(err)})`,
      };
    }
    const body = await res.text().catch(() => "");
    if (!res.ok) {
      return {
        retry: res.status === 429 || res.status === 408 || res.status >= 500,
        waitMs: retryAfterMs(res.headers),
        what: `HTTP ${res.status}${serverMessage(body)}`,
      };
    }
    return { vectors: parseVectors(body, input.length, config.dimensions, fail) };
  };

  // Rate limits and brief outages are normal for a hosted endpoint: retry them as the chat client
  // does (honouring Retry-After) before failing the run.
  const request = async (input: readonly string[]): Promise<Float32Array[]> => {
    for (let retry = 0; ; retry++) {
      const result = await attempt(input);
      if ("vectors" in result) return result.vectors;
      if (!result.retry || retry >= maxRetries) {
        const tries = retry === 0 ? "" : ` (after ${retry + 1} attempts)`;
        throw fail(`${result.what}${tries}`);
      }
      const waitMs = result.waitMs ?? backoffDelayMs(retry, backoff, Math.random);
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  };

  return {
    model: config.model,
    baseURL: config.baseURL,
    async embed(texts) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        out.push(...(await request(texts.slice(i, i + batchSize))));
      }
      return out;
    },
  };
}

type Attempt =
  | { vectors: Float32Array[] }
  | { retry: boolean; waitMs: number | null; what: string };

/** An embedder for replays: the recording holds every vector, so any request is a divergence. */
function offlineEmbedder(model: string, baseURL: string): Embedder {
  return {
    model,
    baseURL,
    embed(texts) {
      const first = JSON.stringify(texts[0]?.slice(0, 80) ?? "");
      return Promise.reject(
        new RecallEmbeddingError(
          `Replay needs an embedding (model ${model}) of ${texts.length} text(s) that the recorded ` +
            `run's index.sqlite does not hold, starting with ${first}: the replay has diverged ` +
            "from the recording (or the recorded index was deleted). Replays make no network " +
            "calls; re-run without --replay to embed again.",
        ),
      );
    },
  };
}

function parseVectors(
  body: string,
  expected: number,
  dimensions: number | undefined,
  fail: (what: string) => RecallEmbeddingError,
): Float32Array[] {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw fail("the response is not JSON");
  }
  const data = (json as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== expected) {
    throw fail(`expected ${expected} embeddings in "data", got ${describeCount(data)}`);
  }
  const vectors: Float32Array[] = new Array(expected);
  data.forEach((item: unknown, position) => {
    const { index, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
    const slot = typeof index === "number" ? index : position;
    if (
      !Array.isArray(embedding) ||
      !embedding.every((x) => typeof x === "number" && Number.isFinite(x))
    ) {
      throw fail(`embedding ${slot} is not an array of finite numbers`);
    }
    if (embedding.length === 0) throw fail(`embedding ${slot} is empty`);
    if (dimensions !== undefined && embedding.length !== dimensions) {
      throw fail(`embedding ${slot} has ${embedding.length} dimensions, expected ${dimensions}`);
    }
    if (slot < 0 || slot >= expected || vectors[slot] !== undefined) {
      throw fail(`embedding index ${slot} is out of range or repeated`);
    }
    vectors[slot] = unit(embedding as number[]);
  });
  const dims = vectors[0]!.length;
  if (vectors.some((v) => v.length !== dims)) {
    throw fail("the embeddings in one response have different dimensions");
  }
  return vectors;
}

function unit(values: readonly number[]): Float32Array {
  let norm = 0;
  for (const x of values) norm += x * x;
  norm = Math.sqrt(norm);
  const v = Float32Array.from(values);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = v[i]! / norm;
  return v;
}

function serverMessage(body: string): string {
  let message = body;
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } } | null;
    if (typeof parsed?.error?.message === "string") message = parsed.error.message;
  } catch {
    // Not JSON: show the raw text.
  }
  message = message.trim().slice(0, 300);
  return message === "" ? "" : `: ${message}`;
}

function describeCount(data: unknown): string {
  return Array.isArray(data) ? String(data.length) : "none";
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : "";
    return `${err.message}${cause}`;
  }
  return String(err);
}

/** The key must never surface in an error, even if a server echoes it back. */
function redact(text: string, apiKey: string | undefined): string {
  return apiKey === undefined || apiKey === "" ? text : text.replaceAll(apiKey, "***");
}
