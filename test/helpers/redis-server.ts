/**
 * A real Debian `redis-server` for system tests, on 127.0.0.1 and a free port, with its data in a
 * temporary directory (append-only file on, so a stop and a start keep the queue as a restarted
 * production Redis would).
 *
 * ```ts
 * const redis = await startRedisServer();
 * // ... redis.url is "redis://127.0.0.1:<port>"
 * await redis.stop();   // SIGTERM, as `systemctl stop` would
 * await redis.start();  // the same port, the same data
 * await redis.close();  // stops it and removes its directory
 * ```
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export interface RedisServer {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** The directory holding its append-only file. */
  dir: string;
  /** Stops it (SIGTERM, or SIGKILL with `kill: true`) and waits for the process to exit. */
  stop(options?: { kill?: boolean }): Promise<void>;
  /** Starts it again on the same port with the same data. */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

export interface RedisServerOptions {
  /** Extra `redis-server` arguments, e.g. `["--requirepass", "secret"]`. */
  args?: string[];
  /** Keep the append-only file (default true). */
  persistent?: boolean;
}

/** A port nothing listens on right now (the kernel picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function whenReady(child: ChildProcess, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => {
      reject(new Error(`redis-server did not start in ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) {
        clearTimeout(timer);
        child.stdout?.off("data", onData);
        child.stdout?.resume();
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(
        new Error(
          `could not start redis-server (${error.message}): install it with ` +
            "`apt-get install -y --no-install-recommends redis-server`",
        ),
      );
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code ?? signal}) before it was ready:\n${output}`));
    });
  });
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-redis-"));
  const persistent = options.persistent ?? true;
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--dir",
    dir,
    "--save",
    "",
    "--appendonly",
    persistent ? "yes" : "no",
    "--appendfsync",
    "always",
    "--maxmemory-policy",
    "noeviction",
    ...(options.args ?? []),
  ];
  let child: ChildProcess | undefined;

  const start = async (): Promise<void> => {
    const started = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
    child = started;
    started.stderr?.resume();
    await whenReady(started, 15_000);
    // Once ready, an exit is no longer a start failure.
    started.removeAllListeners("exit");
  };

  const stop = async (stopOptions: { kill?: boolean } = {}): Promise<void> => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
    running.kill(stopOptions.kill === true ? "SIGKILL" : "SIGTERM");
    await exited;
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    stop,
    start,
    close: async () => {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
