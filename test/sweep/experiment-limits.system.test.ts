import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliAsync, DATA, ROOT, tempDir } from "../helpers/cli.js";
import { type RecordedRequest, startScriptedServer } from "../helpers/scripted-openai-server.js";
import { seededTrader } from "../helpers/seeded-trader.js";

// An experiment's runs share one limiter per provider: a server's rate limit is never passed,
// and a 429's Retry-After holds every run back, not only the one that got it.

const work = tempDir("agenticbt-experiment-limits-");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const STRATEGY = path.join(ROOT, "strategies", "rsi-mean-reversion.md");
const GOOG = path.join(DATA, "GOOG.csv");

function sweep(url: string, name: string, args: string[]) {
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
      ...args,
      "--runs-dir",
      path.join(work, name, "runs"),
    ],
    work,
    { ...process.env, OPENAI_BASE_URL: url, OPENAI_API_KEY: "test" },
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

const seedOf = (req: RecordedRequest) => (req.body as { seed?: number }).seed ?? 0;

describe("an experiment against a provider's limits", () => {
  it("never goes over 60 requests a minute (enforced per second) with --concurrency 4", async () => {
    const server = await startScriptedServer((req) => seededTrader(req), {
      rateLimit: { requests: 1, windowMs: 1_000 },
    });
    // The provider's limits from the project config (the flags --rpm 60 --rate-window 1 would do
    // the same), under the flags given (--tpm); the other test's server is another provider,
    // which this entry does not match.
    fs.writeFileSync(
      path.join(work, "agenticbt.config.json"),
      JSON.stringify({
        providers: [{ baseURL: `${server.url}/`, rpm: 60, "rate-window": 1, tpm: 5 }],
      }),
    );
    try {
      const started = Date.now();
      const r = await sweep(server.url, "paced", [
        "--windows",
        "2012-01-01:2012-02-29",
        "--every",
        "20",
        "--concurrency",
        "4",
        "--tpm",
        "1000000",
      ]);
      const elapsed = Date.now() - started;
      expect(r.code, r.stderr).toBe(0);
      const answered = server.requests.filter((q) => q.path.endsWith("/chat/completions"));
      expect(answered.length).toBeGreaterThanOrEqual(8);
      expect(server.overLimit()).toEqual([]);
      // The limit did bind: one request a second, so the calls took at least that long.
      expect(elapsed).toBeGreaterThanOrEqual((answered.length - 1) * 1_000);
      // --concurrency 4 is 4 runs in flight: all four started before the first finished.
      const lines = r.stderr.split("\n");
      const firstDone = lines.findIndex((l) => /^\[1\/4\]/.test(l));
      expect(lines.slice(0, firstDone).filter((l) => / started \(seed/.test(l))).toHaveLength(4);
      expect(new Set(answered.map(seedOf)).size).toBe(4);
      // Each run records the limits it ran under.
      const runs = path.join(work, "paced", "runs");
      for (const id of fs.readdirSync(runs)) {
        const config = JSON.parse(fs.readFileSync(path.join(runs, id, "config.json"), "utf8"));
        expect(config.agent).toMatchObject({
          concurrency: 4,
          rpm: 60,
          rateWindowS: 1,
          tpm: 1_000_000,
        });
      }
    } finally {
      fs.rmSync(path.join(work, "agenticbt.config.json"));
      await server.close();
    }
  });

  it("--jobs sets the runs in flight alone: --concurrency 4 --jobs 1 runs one at a time", async () => {
    const server = await startScriptedServer((req) => seededTrader(req));
    try {
      const r = await sweep(server.url, "jobs", [
        "--windows",
        "2012-01-01:2012-01-31",
        "--every",
        "10",
        "--concurrency",
        "4",
        "--jobs",
        "1",
      ]);
      expect(r.code, r.stderr).toBe(0);
      // Each run finishes before the next starts.
      const events = r.stderr
        .split("\n")
        .filter((l) => / started \(seed/.test(l) || /^\[\d\/4\]/.test(l))
        .map((l) => (l.startsWith("[") ? "done" : "started"));
      expect(events).toEqual(Array.from({ length: 4 }, () => ["started", "done"]).flat());
    } finally {
      await server.close();
    }
  });

  it("pauses every run for a 429's Retry-After, then all of them go on", async () => {
    const arrivals: { at: number; seed: number }[] = [];
    const REFUSED = 5;
    const server = await startScriptedServer((req, index) => {
      arrivals.push({ at: Date.now(), seed: seedOf(req) });
      if (index === REFUSED) return { status: 429, headers: { "retry-after": "1" } };
      return { delayMs: 100, answer: seededTrader(req) };
    });
    try {
      const r = await sweep(server.url, "paused", [
        "--windows",
        "2012-01-01:2012-03-31",
        "--every",
        "10",
        "--concurrency",
        "4",
      ]);
      expect(r.code, r.stderr).toBe(0);
      const refused = arrivals[REFUSED] as { at: number; seed: number };
      // Other runs were calling when the 429 came (so there was something to pause).
      const before = arrivals.slice(0, REFUSED).filter((a) => a.seed !== refused.seed);
      expect(before.length).toBeGreaterThan(0);
      // Nothing reached the server while the wait held (a request already on its way when the
      // 429 left may arrive just after it: 150 ms of grace), from any run.
      const during = arrivals.filter((a) => a.at > refused.at + 150 && a.at < refused.at + 900);
      expect(during).toEqual([]);
      // Then every run went on.
      const after = arrivals.filter((a) => a.at >= refused.at + 900);
      expect(new Set(after.map((a) => a.seed)).size).toBe(4);
    } finally {
      await server.close();
    }
  });
});
