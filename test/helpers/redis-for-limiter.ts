import { type ChildProcess, spawn } from "node:child_process";
import net from "node:net";

/** A throwaway redis-server on 127.0.0.1 (no persistence), for the limiter's tests. */
export interface LimiterRedis {
  url: string;
  /** Stops it, waits `downMs`, and starts it again on the same port (empty: no persistence). */
  restart(downMs: number): Promise<void>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.setTimeout(500);
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (d) => {
      socket.destroy();
      resolve(d.toString().startsWith("+PONG"));
    });
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** A redis-server on `port`, answering PING; `stop` ends it. */
async function spawnRedis(port: number): Promise<() => Promise<void>> {
  const child: ChildProcess = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  for (let i = 0; ; i++) {
    if (await ping(port)) break;
    if (child.exitCode !== null || i > 100)
      throw new Error(`redis-server did not answer on port ${port} (is it installed?)`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    await exited;
  };
}

export async function startLimiterRedis(): Promise<LimiterRedis> {
  const port = await freePort();
  let stop = await spawnRedis(port);
  return {
    url: `redis://127.0.0.1:${port}`,
    async restart(downMs) {
      await stop();
      await new Promise((r) => setTimeout(r, downMs));
      stop = await spawnRedis(port);
    },
    close: () => stop(),
  };
}
