import { createHash } from "node:crypto";
import path from "node:path";
import { z } from "zod";
import { DEFAULT_CACHE_DIR } from "../../config/run-settings.js";
import { writeFileAtomic } from "../../util/atomic-write.js";
import { readFileNoFollow } from "../../util/no-follow.js";
import type { ChatRequest, TokenUsage } from "../types.js";
import { normaliseBaseUrl } from "./llm-settings.js";
import {
  type RecordedAnswer,
  recordedAnswerSchema,
  recordedRequestSchema,
  toChatRequest,
  toRecordedAnswer,
  toUsage,
  usageSchema,
} from "./recorded-answer.js";
import { canonicalJson, canonicalRequest } from "./request-hash.js";

/**
 * The cache key of a request to a server: sha256 of the normalised base URL and the canonical
 * request (model, messages, tools, parameters). The same model name on two servers is two keys.
 */
export function cacheKey(baseURL: string, request: ChatRequest): string {
  const scoped = { baseURL: normaliseBaseUrl(baseURL), request: canonicalRequest(request) };
  return createHash("sha256").update(canonicalJson(scoped)).digest("hex");
}

export { DEFAULT_CACHE_DIR };

/** A cached answer, with the tokens it cost when it was first fetched. */
export interface CachedAnswer extends RecordedAnswer {
  usage: TokenUsage;
}

export interface CacheStats {
  hits: number;
  misses: number;
  writes: number;
  /** Cache files that could not be read as an answer to their key; treated as misses. */
  corrupt: number;
  /** Answers that could not be stored (disk full, read-only dir); the call itself succeeded. */
  writeFailures: number;
}

const fileSchema = z.object({
  baseURL: z.string(),
  request: recordedRequestSchema,
  response: recordedAnswerSchema.extend({ usage: usageSchema }),
});

const HASH = /^[0-9a-f]{64}$/;

/**
 * Content-addressed store of model answers: `<dir>/<key[0..2]>/<key>.json` holds
 * `{ baseURL, request, response }`. The key is `cacheKey(baseURL, request)`, so an identical
 * re-run against the same server costs nothing. The
 * cache only ever speeds things up: a damaged file is a miss, a failed write is counted, neither
 * stops a run.
 */
export class ResponseCache {
  private readonly counters: CacheStats = {
    hits: 0,
    misses: 0,
    writes: 0,
    corrupt: 0,
    writeFailures: 0,
  };

  constructor(
    readonly dir: string = DEFAULT_CACHE_DIR,
    /** Told of each answer that could not be stored (the run warns at the first one). */
    private readonly onWriteFailure: ((file: string, error: unknown) => void) | null = null,
  ) {}

  get(hash: string): CachedAnswer | null {
    const file = this.fileFor(hash);
    let bytes: Buffer | null;
    try {
      // A link planted in the cache is not followed: it counts as a miss.
      bytes = readFileNoFollow(file);
    } catch {
      bytes = null;
    }
    if (bytes === null) {
      this.counters.misses += 1;
      return null;
    }
    const text = bytes.toString("utf8");
    const answer = parseCacheFile(text, hash);
    if (!answer) {
      this.counters.corrupt += 1;
      this.counters.misses += 1;
      return null;
    }
    this.counters.hits += 1;
    return answer;
  }

  put(hash: string, baseURL: string, request: ChatRequest, response: CachedAnswer): void {
    const file = this.fileFor(hash);
    const body = {
      baseURL: normaliseBaseUrl(baseURL),
      request,
      response: {
        message: response.message,
        finishReason: response.finishReason,
        usage: response.usage,
      },
    };
    try {
      writeFileAtomic(file, `${JSON.stringify(body)}\n`);
      this.counters.writes += 1;
    } catch (err) {
      this.counters.writeFailures += 1;
      this.onWriteFailure?.(file, err);
    }
  }

  stats(): CacheStats {
    return { ...this.counters };
  }

  /** The file of a key. The hash is checked so that a key can never name a path elsewhere. */
  fileFor(hash: string): string {
    if (!HASH.test(hash)) {
      throw new RangeError(
        `Not a request hash (64 lower-case hex digits): ${JSON.stringify(hash)}`,
      );
    }
    return path.join(this.dir, hash.slice(0, 2), `${hash}.json`);
  }
}

/** An answer, if the file is one and really belongs to this key (its server and request hash to it). */
function parseCacheFile(text: string, hash: string): CachedAnswer | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) return null;
  if (cacheKey(parsed.data.baseURL, toChatRequest(parsed.data.request)) !== hash) return null;
  return { ...toRecordedAnswer(parsed.data.response), usage: toUsage(parsed.data.response.usage) };
}
