import net from "node:net";
import { afterAll, expect, test } from "vitest";
import { type RedisServer, startRedisServer } from "./redis-server.js";

/** Sends one inline command and returns the first reply line. */
function command(port: number, line: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(`${line}\r\n`));
    socket.once("data", (d) => {
      resolve(d.toString().split("\r\n")[0] ?? "");
      socket.end();
    });
    socket.once("error", reject);
  });
}

let redis: RedisServer | undefined;
afterAll(async () => redis?.close());

test("a started redis-server answers, and keeps its data across a stop and a start", async () => {
  redis = await startRedisServer();
  expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
  expect(await command(redis.port, "SET k kept")).toBe("+OK");
  await redis.stop();
  await expect(command(redis.port, "PING")).rejects.toThrow();
  await redis.start();
  expect(await command(redis.port, "GET k")).toBe("$4");
});
