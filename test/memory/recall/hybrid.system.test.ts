import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  openRecallIndex,
  RecallEmbeddingError,
  RecallInputError,
} from "../../../src/memory/recall/index.js";
import { MemoryWorkspace } from "../../../src/memory/workspace.js";
import {
  type EmbeddingsFault,
  type RecordedRequest,
  type ScriptedServer,
  startScriptedServer,
} from "../../helpers/scripted-openai-server.js";
import { at, tempDir, where } from "./recall-test-kit.js";

const KEY = "sk-test-secret-0123456789";
const QUERY = "protect the account";

let tmp: ReturnType<typeof tempDir>;
let dir: string;
let server: ScriptedServer | null = null;

beforeEach(() => {
  tmp = tempDir();
  dir = path.join(tmp.dir, "run");
  const ws = new MemoryWorkspace({ dir, runId: "r1" });
  ws.init("# Manual\nTrade pullbacks in uptrends.\n");
  // Lexically the best match for QUERY, but about something else.
  ws.note(
    "account",
    "# Account\nThe account is at a new high; protect nothing, add to winners.\n",
    at("2024-01-02T10:00"),
  );
  // No word in common with QUERY, yet it is what "protect the account" means.
  ws.note(
    "risk",
    "# Risk\nNever risk more than 1% per trade and cut losers fast.\n",
    at("2024-01-02T10:00"),
  );
  ws.log("Bought NVDA on the pullback.", at("2024-01-03T10:00"));
});
afterEach(async () => {
  await server?.close();
  server = null;
  tmp.cleanup();
});

/** Meaning, scripted: the risk rule and the query point one way, everything else the other. */
function embed(input: string[]): number[][] {
  return input.map((t) => (t.includes("Never risk") || t === QUERY ? [1, 0, 0] : [0, 1, 0]));
}

type EmbeddingsScript = (input: string[], index: number) => number[][] | EmbeddingsFault;

const embeddedTexts = (requests: RecordedRequest[]): string[] =>
  requests
    .filter((r) => r.path === "/v1/embeddings")
    .flatMap((r) => (r.body as { input: string[] }).input);

async function serve(embeddings: EmbeddingsScript): Promise<ScriptedServer> {
  server = await startScriptedServer([], { embeddings });
  return server;
}

describe("hybrid recall", () => {
  it("lets a vector lift a lexically weak chunk above the keyword winner", async () => {
    const s = await serve(embed);
    const keywords = openRecallIndex(dir);
    expect(where(keywords.searchSync(QUERY, {}))).toEqual(["notes/account.md:2"]);
    keywords.close();

    const index = openRecallIndex(dir, {
      embeddings: { model: "emb", baseURL: s.url, apiKey: KEY },
    });
    const hits = await index.search(QUERY, {});
    expect(where(hits)).toEqual(["notes/risk.md:2", "notes/account.md:2"]);
    // 0.5 * s_fts(0) + 0.5 * cos(1): exactly half.
    expect(hits[0]!.score).toBe(0.5);
    expect(hits[1]!.score).toBeGreaterThan(0.1);
    expect(hits[1]!.score).toBeLessThan(0.5);
    const embedCalls = s.requests.filter((r) => r.path === "/v1/embeddings");
    expect(embedCalls[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(index.health().embeddings).toEqual({ model: "emb", baseURL: s.url, vectors: 5 });
    index.close();
  });

  it("weights are configurable: all on keywords gives the BM25 order back", async () => {
    const s = await serve(embed);
    const index = openRecallIndex(dir, {
      embeddings: { model: "emb", baseURL: s.url },
      weights: { fts: 1, vec: 0 },
    });
    expect(where(await index.search(QUERY, { minScore: 0 }))).toEqual(["notes/account.md:2"]);
    index.close();
  });

  it("caches chunk vectors by content and model in the index", async () => {
    const s = await serve(embed);
    const opts = { embeddings: { model: "emb", baseURL: s.url } };
    const first = openRecallIndex(dir, opts);
    await first.search(QUERY, {});
    expect(embeddedTexts(s.requests)).toHaveLength(5 + 1);
    first.close();

    s.requests.length = 0;
    const again = openRecallIndex(dir, opts);
    await again.search("cut losers", {});
    // Only the new query is embedded: every chunk vector came from index.sqlite.
    expect(embeddedTexts(s.requests)).toEqual(["cut losers"]);

    s.requests.length = 0;
    new MemoryWorkspace({ dir, runId: "r1" }).log("Sold NVDA.", at("2024-01-04T10:00"));
    await again.search("cut losers", {});
    expect(embeddedTexts(s.requests)).toEqual(["# Journal 2024-01-04", "[10:00] Sold NVDA."]);
    again.close();
  });

  it("applies as-of before embedding: later chunks are neither embedded nor returned", async () => {
    const s = await serve(embed);
    const index = openRecallIndex(dir, { embeddings: { model: "emb", baseURL: s.url } });
    const hits = await index.search(QUERY, { asOf: at("2024-01-02T09:00") });
    expect(hits.map((h) => h.path)).toEqual([]);
    expect(embeddedTexts(s.requests)).toEqual(["# Manual\nTrade pullbacks in uptrends.", QUERY]);
    index.close();
  });

  it("refuses the synchronous keyword path when embeddings are configured", async () => {
    const s = await serve(embed);
    const index = openRecallIndex(dir, { embeddings: { model: "emb", baseURL: s.url } });
    expect(() => index.searchSync(QUERY, {})).toThrow(RecallInputError);
    index.close();
  });
});

describe("hybrid recall failures are loud and keep the key secret", () => {
  it("an HTTP error is a RecallEmbeddingError, even if the server echoes the key", async () => {
    const s = await serve(() => {
      throw new Error(`Incorrect API key provided: ${KEY}`);
    });
    const index = openRecallIndex(dir, {
      embeddings: { model: "emb", baseURL: s.url, apiKey: KEY, backoffBaseMs: 1 },
    });
    const err = await index.search(QUERY, {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecallEmbeddingError);
    expect((err as Error).message).toMatch(
      /HTTP 500.*Incorrect API key provided: \*\*\* \(after 4 attempts\)/,
    );
    expect((err as Error).message).not.toContain(KEY);
    // A 500 is retried three times (the default) before the error.
    expect(s.requests.filter((r) => r.path === "/v1/embeddings")).toHaveLength(4);
    index.close();
  });

  it("retries a 429 after the wait its Retry-After asks for, then a 503, then succeeds", async () => {
    const faults = [
      { status: 429, headers: { "retry-after-ms": "150" }, message: "slow down" },
      { status: 503, message: "overloaded" },
    ];
    const s = await serve((input, i) => faults[i] ?? embed(input));
    const index = openRecallIndex(dir, {
      embeddings: { model: "emb", baseURL: s.url, backoffBaseMs: 1 },
    });
    const t0 = performance.now();
    const hits = await index.search(QUERY, {});
    expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
    expect(where(hits)[0]).toBe("notes/risk.md:2");
    const calls = s.requests.filter((r) => r.path === "/v1/embeddings");
    // 2 faults, then the chunks' batch and the query each once.
    expect(calls).toHaveLength(4);
    expect(calls[0]?.body).toEqual(calls[2]?.body);
    index.close();
  });

  it("does not retry what a retry cannot fix (400, 401, 404), and honours maxRetries 0", async () => {
    const s = await serve(() => ({ status: 401, message: "bad key" }));
    const index = openRecallIndex(dir, {
      embeddings: { model: "emb", baseURL: s.url, backoffBaseMs: 1 },
    });
    await expect(index.search(QUERY, {})).rejects.toThrow(/HTTP 401: bad key\. Check/);
    expect(s.requests).toHaveLength(1);
    index.close();
    const s2 = await startScriptedServer([], { embeddings: () => ({ status: 500 }) });
    const once = openRecallIndex(dir, {
      embeddings: { model: "emb2", baseURL: s2.url, maxRetries: 0 },
    });
    await expect(once.search(QUERY, {})).rejects.toThrow(/HTTP 500: scripted fault 500\. Check/);
    expect(s2.requests).toHaveLength(1);
    once.close();
    await s2.close();
  });

  it("a missing endpoint is an error, not a silent fall back to keywords", async () => {
    server = await startScriptedServer([]);
    const index = openRecallIndex(dir, { embeddings: { model: "emb", baseURL: server.url } });
    await expect(index.search(QUERY, {})).rejects.toThrow(/HTTP 404/);
    index.close();
  });

  it("vectors of the wrong length are refused", async () => {
    const s = await serve((input) => input.map(() => [1, 0]));
    const index = openRecallIndex(dir, {
      embeddings: { model: "emb", baseURL: s.url, dimensions: 3 },
    });
    await expect(index.search(QUERY, {})).rejects.toThrow(
      /embedding 0 has 2 dimensions, expected 3/,
    );
    index.close();
  });

  it("a model whose dimensions change under the same name is refused", async () => {
    let dims = 3;
    const s = await serve((input) => input.map(() => Array.from({ length: dims }, () => 1)));
    const index = openRecallIndex(dir, { embeddings: { model: "emb", baseURL: s.url } });
    await index.search(QUERY, {});
    dims = 4;
    const err = await index.search("another query", {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecallEmbeddingError);
    expect((err as Error).message).toMatch(/4-dimensional query vectors.*3-dimensional/);
    index.close();
  });
});
