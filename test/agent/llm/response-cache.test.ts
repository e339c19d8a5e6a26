import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fse from "fs-extra";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type CachedAnswer,
  cacheKey,
  ResponseCache,
} from "../../../src/agent/llm/response-cache.js";
import type { ChatRequest } from "../../../src/agent/types.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "abt-cache-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const req: ChatRequest = { model: "m", messages: [{ role: "user", content: "hi" }], seed: 1 };
const BASE = "http://127.0.0.1:8000/v1";
const hash = cacheKey(BASE, req);
const answer: CachedAnswer = {
  message: { role: "assistant", content: "hello", refusal: null },
  finishReason: "stop",
  usage: { prompt: 5, completion: 2, cached: 1 },
};

describe("ResponseCache", () => {
  it("stores { baseURL, request, response } under <key[0..2]>/<key>.json and reads it back", () => {
    const cache = new ResponseCache(dir);
    expect(cache.get(hash)).toBeNull();
    cache.put(hash, BASE, req, answer);
    const file = path.join(dir, hash.slice(0, 2), `${hash}.json`);
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toEqual({
      baseURL: BASE,
      request: req,
      response: answer,
    });
    expect(new ResponseCache(dir).get(hash)).toEqual(answer);
    expect(cache.stats()).toMatchObject({ hits: 0, misses: 1, writes: 1 });
  });

  it.each([
    ["not JSON", "{trunc"],
    ["the wrong shape", '{"request":{},"response":{}}'],
    [
      "an answer to another request",
      JSON.stringify({ baseURL: BASE, request: { ...req, seed: 2 }, response: answer }),
    ],
    [
      "an answer from another server",
      JSON.stringify({ baseURL: "http://127.0.0.1:9999/v1", request: req, response: answer }),
    ],
    [
      "an answer without its server (an older cache)",
      JSON.stringify({ request: req, response: answer }),
    ],
  ])("treats a file that is %s as a miss and counts it", (_, text) => {
    const cache = new ResponseCache(dir);
    const file = cache.fileFor(hash);
    fse.outputFileSync(file, text);
    expect(cache.get(hash)).toBeNull();
    expect(cache.stats()).toMatchObject({ corrupt: 1, misses: 1, hits: 0 });
    // A fresh answer repairs the entry.
    cache.put(hash, BASE, req, answer);
    expect(cache.get(hash)).toEqual(answer);
  });

  it("counts a failed write instead of failing the call", () => {
    const blocker = path.join(dir, "file");
    fs.writeFileSync(blocker, "");
    const cache = new ResponseCache(path.join(blocker, "cache"));
    expect(() => cache.put(hash, BASE, req, answer)).not.toThrow();
    expect(cache.stats().writeFailures).toBe(1);
  });

  it("refuses a key that is not a hash, so no key can name a path elsewhere", () => {
    expect(() => new ResponseCache(dir).get("../../etc/passwd")).toThrow(RangeError);
  });
});
