// A process making one LLM call through the Redis provider limiter (concurrency 1), so that a
// test can kill it mid-call (the server sees the request in flight). Args: redis URL, namespace,
// base URL, lease ms.
import { LlmClient } from "../../src/agent/llm/llm-client.js";
import { RedisProviderLimiter } from "../../src/agent/llm/redis-provider-limiter.js";

const [url, namespace, baseURL, leaseMs] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
];
const limiter = new RedisProviderLimiter(
  { url, namespace },
  baseURL,
  "m",
  { concurrency: 1, rpm: null, tpm: null, windowMs: 60_000 },
  { leaseMs: Number(leaseMs) },
);
const client = new LlmClient({
  model: "m",
  baseURL,
  apiKey: "test",
  limiter,
  maxRetries: 0,
  timeoutMs: 600_000,
});
await client.complete({ model: "m", messages: [{ role: "user", content: "hello" }] });
