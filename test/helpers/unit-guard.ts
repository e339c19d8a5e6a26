// The unit project's setup file: a unit test starts no process and no server, so the inner loop
// stays fast. A test that needs one belongs in the system project (name it *.system.test.ts).
import { createRequire } from "node:module";
import { afterEach } from "vitest";

const require = createRequire(import.meta.url);
const childProcess = require("node:child_process") as Record<string, unknown>;
const net = require("node:net") as typeof import("node:net");
const { syncBuiltinESMExports } = require("node:module") as typeof import("node:module");

const attempts: string[] = [];

function refuse(what: string): never {
  const message =
    `${what} in a unit test: move this test to the system project ` +
    "(rename it to *.system.test.ts); the unit project starts no process and no server.";
  attempts.push(message);
  throw new Error(message);
}

for (const name of ["spawn", "spawnSync", "fork", "exec", "execSync", "execFile", "execFileSync"]) {
  childProcess[name] = () => refuse(`child_process.${name}`);
}
net.Server.prototype.listen = function listen(): never {
  return refuse("a server's listen()");
};
// ESM imports of node:child_process read the same functions once they are synced.
syncBuiltinESMExports();

// A test that catches the error above still fails.
afterEach(() => {
  const first = attempts[0];
  attempts.length = 0;
  if (first !== undefined) throw new Error(first);
});
