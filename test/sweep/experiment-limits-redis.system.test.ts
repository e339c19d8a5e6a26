import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITER_STORE_ENV } from "../../src/agent/llm/limiter-store.js";
import { RedisProviderLimiter } from "../../src/agent/llm/redis-provider-limiter.js";
import { cliAsync, DATA, ROOT, tempDir } from "../helpers/cli.js";
import { type LimiterRedis, startLimiterRedis } from "../helpers/redis-for-limiter.js";
import { startScriptedServer } from "../helpers/scripted-openai-server.js";
import { seededTrader } from "../helpers/seeded-trader.js";

// Processes that count their provider limits in one Redis keep them together: two experiments
// (two processes, as two workers) against one rate-limited server are never refused, where the
// same two with limits of their own are; and a process killed mid-call gives its call slot back
// once its lease runs out.

const work = tempDir("agenticbt-experiment-limits-redis-");
const STRATEGY = path.join(ROOT, "strategies", "rsi-mean-reversion.md");
const GOOG = path.join(DATA, "GOOG.csv");
let redis: LimiterRedis;

beforeAll(async () => {
  redis = await startLimiterRedis();
});
afterAll(async () => {
  await redis?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

function sweep(url: string, name: string, env: NodeJS.ProcessEnv, rate: string[]) {
  const child = cliAsync(
    [
      "sweep",
      STRATEGY,
      "--data",
      GOOG,
      "--grid",
      "memory=none",
      "--repeats",
      "4",
      "--yes",
      "--windows",
      "2012-01-01:2012-02-29",
      "--every",
      "20",
      "--concurrency",
      "4",
      // Both experiments send the same prompts: a shared cache would answer some without a call.
      "--no-cache",
      ...rate,
      "--runs-dir",
      path.join(work, name, "runs"),
    ],
    work,
    { ...process.env, OPENAI_BASE_URL: url, OPENAI_API_KEY: "test", ...env },
  );
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  child.stdout.resume();
  return new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on("exit", (code) => resolve({ code, stderr })),
  );
}

async function twoExperiments(
  name: string,
  env: NodeJS.ProcessEnv,
  limit = { requests: 1, windowMs: 1_000 },
  // 60 a minute, enforced per second as the server does.
  rate = ["--rpm", "60", "--rate-window", "1"],
) {
  const server = await startScriptedServer((req) => seededTrader(req), { rateLimit: limit });
  try {
    const started = Date.now();
    const results = await Promise.all([
      sweep(server.url, `${name}-a`, env, rate),
      sweep(server.url, `${name}-b`, env, rate),
    ]);
    const elapsed = Date.now() - started;
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const chat = server.requests.filter((q) => q.path.endsWith("/chat/completions")).length;
    const overLimit = server.overLimit().length;
    return { overLimit, requests: chat - overLimit, elapsed };
  } finally {
    await server.close();
  }
}

describe("provider limits kept in Redis by several processes", () => {
  it("two experiments at --rpm 60 --rate-window 1 send nothing over the server's 1 a second", async () => {
    const env = {
      [LIMITER_STORE_ENV.url]: redis.url,
      [LIMITER_STORE_ENV.namespace]: "shared",
    };
    const together = await twoExperiments("redis", env);
    console.log(`two processes through Redis: ${JSON.stringify(together)}`);
    expect(together.overLimit).toBe(0);
    expect(together.requests).toBeGreaterThanOrEqual(16);
    // The limit bound both processes as one: one request a second between them.
    expect(together.elapsed).toBeGreaterThanOrEqual((together.requests - 1) * 1_000);

    // The same two, each keeping its own count, go over the server's limit.
    const apart = await twoExperiments("apart", {});
    console.log(`two processes apart: ${JSON.stringify(apart)}`);
    expect(apart.overLimit).toBeGreaterThan(0);
  }, 120_000);

  it("keeps a real minute: --rpm 10 against the server's 10 a minute", async () => {
    const env = {
      [LIMITER_STORE_ENV.url]: redis.url,
      [LIMITER_STORE_ENV.namespace]: "minute",
    };
    const minute = await twoExperiments("minute", env, { requests: 10, windowMs: 60_000 }, [
      "--rpm",
      "10",
    ]);
    console.log(`two processes, a real minute: ${JSON.stringify(minute)}`);
    expect(minute.overLimit).toBe(0);
    // More requests than one minute allows: the limit bound.
    expect(minute.requests).toBeGreaterThan(10);
    expect(minute.elapsed).toBeGreaterThanOrEqual(60_000);
  }, 90_000);

  it("gives a killed process's call slot back once its lease has run out", async () => {
    const server = await startScriptedServer(() => ({ hang: true }));
    const LEASE = 1_500;
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        path.join(ROOT, "test", "helpers", "limited-call.ts"),
        redis.url,
        "killed",
        server.url,
        String(LEASE),
      ],
      { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
    const other = new RedisProviderLimiter(
      { url: redis.url, namespace: "killed" },
      server.url,
      "m",
      { concurrency: 1, rpm: null, tpm: null, windowMs: 60_000 },
      { leaseMs: LEASE, pollMs: 20 },
    );
    try {
      for (let i = 0; server.inFlight() === 0; i++) {
        expect(i < 300, `the child never called: ${stderr}`).toBe(true);
        await new Promise((r) => setTimeout(r, 50));
      }
      // Held while its process lives (renewed every third of the lease).
      const whileAlive = other.acquireSlot();
      const heldAlive = await Promise.race([
        whileAlive.then(() => false),
        new Promise<true>((r) => setTimeout(() => r(true), 2 * LEASE)),
      ]);
      expect(heldAlive).toBe(true);
      const killedAt = Date.now();
      child.kill("SIGKILL");
      await exited;
      const release = await whileAlive;
      const tookMs = Date.now() - killedAt;
      release();
      // Not before the lease's last renewal ran out, nor much after.
      expect(tookMs).toBeGreaterThanOrEqual((2 * LEASE) / 3 - 50);
      expect(tookMs).toBeLessThanOrEqual(LEASE + 500);
      console.log(`slot of the killed process taken back ${tookMs} ms after the kill`);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      await server.close();
    }
  }, 60_000);
});
