import path from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "../../util/atomic-write.js";
import { readFileNoFollow } from "../../util/no-follow.js";
import type { ChatRequest, TokenUsage } from "../types.js";
import {
  type RecordedAnswer,
  recordedAnswerSchema,
  recordedRequestSchema,
  toChatRequest,
  toRecordedAnswer,
  toUsage,
  usageSchema,
} from "./recorded-answer.js";
import { hashRequest } from "./request-hash.js";

export const DEFAULT_CACHE_DIR = path.join(".agenticbt", "cache");

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
  request: recordedRequestSchema,
  response: recordedAnswerSchema.extend({ usage: usageSchema }),
});

const HASH = /^[0-9a-f]{64}$/;

/**
 * Content-addressed store of model answers: `<dir>/<hash[0..2]>/<hash>.json` holds
 * `{ request, response }`. The key is the request hash, so an identical re-run costs nothing. The
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

  constructor(readonly dir: string = DEFAULT_CACHE_DIR) {}

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

  put(hash: string, request: ChatRequest, response: CachedAnswer): void {
    const file = this.fileFor(hash);
    const body = {
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
    } catch {
      this.counters.writeFailures += 1;
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

/** An answer, if the file is one and really belongs to this key (its request hashes to it). */
function parseCacheFile(text: string, hash: string): CachedAnswer | null {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) return null;
  if (hashRequest(toChatRequest(parsed.data.request)) !== hash) return null;
  return { ...toRecordedAnswer(parsed.data.response), usage: toUsage(parsed.data.response.usage) };
}
