import { describe, expect, it } from "vitest";
import { canonicalJson, hashRequest } from "../../../src/agent/llm/request-hash.js";
import type { ChatRequest } from "../../../src/agent/types.js";

const req: ChatRequest = {
  model: "m",
  messages: [{ role: "user", content: "hi" }],
  temperature: 0,
};

describe("request hash", () => {
  it("ignores key order and undefined fields", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: undefined } })).toBe(
      '{"a":{"d":[1,{"e":3,"f":2}]},"b":1}',
    );
    const reordered = { temperature: 0, messages: [{ content: "hi", role: "user" }], model: "m" };
    expect(hashRequest(reordered as ChatRequest)).toBe(hashRequest(req));
    expect(hashRequest({ ...req, tools: undefined, seed: undefined })).toBe(hashRequest(req));
    expect(hashRequest({ ...req, tools: [] })).toBe(hashRequest(req));
  });

  it("changes with everything that decides the answer", () => {
    const h = hashRequest(req);
    expect(hashRequest({ ...req, model: "m2" })).not.toBe(h);
    expect(hashRequest({ ...req, temperature: 0.1 })).not.toBe(h);
    expect(hashRequest({ ...req, maxTokens: 10 })).not.toBe(h);
    expect(hashRequest({ ...req, seed: 1 })).not.toBe(h);
    expect(hashRequest({ ...req, messages: [{ role: "user", content: "hi!" }] })).not.toBe(h);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
  });
});
