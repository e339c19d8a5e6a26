import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { DATA, ROOT, tempDir } from "../helpers/cli.js";
import { type RedisServer, startRedisServer } from "../helpers/redis-server.js";
import { type ScriptedServer, startScriptedServer } from "../helpers/scripted-openai-server.js";
import { seededTrader } from "../helpers/seeded-trader.js";
import { stopWorker, type WorkerProcess } from "./queue-kit.js";

/** The LLM experiment the queue's tests run, from the working directory: `agenticbt sweep`'s
 * first arguments (its settings follow). */
export const LLM_SWEEP = [
  "sweep",
  path.join(ROOT, "strategies", "rsi-mean-reversion.md"),
  "--data",
  "GOOG.csv",
];

/** What an LLM experiment test through a queue works with. */
export interface ExperimentKit {
  /** A trader that answers by the request's seed alone. */
  server: ScriptedServer;
  /** The working directory, GOOG.csv in it. */
  work: string;
  /** The environment that points a process at `server`. */
  env: NodeJS.ProcessEnv;
  /** Workers the test started: stopped at the end. */
  workers: WorkerProcess[];
  /** The real redis-server's URL (started before the tests). */
  redisUrl(): string;
}

/** Registers the file's set-up and tear-down: the server, a redis-server, the working directory
 * and the workers started in it. Call it at the file's top level. */
export async function experimentKit(prefix: string): Promise<ExperimentKit> {
  const server = await startScriptedServer((req) => seededTrader(req));
  const work = tempDir(prefix);
  const workers: WorkerProcess[] = [];
  let redis: RedisServer | undefined;
  beforeAll(async () => {
    redis = await startRedisServer();
    fs.copyFileSync(path.join(DATA, "GOOG.csv"), path.join(work, "GOOG.csv"));
  });
  afterAll(async () => {
    for (const w of workers) await stopWorker(w);
    await redis?.close();
    await server.close();
    fs.rmSync(work, { recursive: true, force: true });
  });
  return {
    server,
    work,
    env: { ...process.env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "test" },
    workers,
    redisUrl() {
      if (redis === undefined) throw new Error("the redis-server starts before the tests");
      return redis.url;
    },
  };
}
