// Loaded with `node --import` (NODE_OPTIONS) into a CLI child process: writes to files whose path
// matches AGENTICBT_ENOSPC_FILE (a regular expression) fail as on a full disk. The first
// AGENTICBT_ENOSPC_SKIP matching opens for writing (default 0) still work. A doomed file takes
// half of the first write (a short write, as a nearly full disk gives) and then fails with
// ENOSPC, so the code under test meets both halves of a full disk.
import fs from "node:fs";

const pattern = new RegExp(process.env.AGENTICBT_ENOSPC_FILE ?? "(?!)");
const skip = Number(process.env.AGENTICBT_ENOSPC_SKIP ?? 0);
let matched = 0;
const doomed = new Set();
const shortened = new Set();

const enospc = () =>
  Object.assign(new Error("ENOSPC: no space left on device, write"), {
    code: "ENOSPC",
    errno: -28,
    syscall: "write",
  });

const writes = (flags) =>
  typeof flags === "number" ? (flags & 3) !== 0 : typeof flags === "string" && flags !== "r";

const { openSync, closeSync, writeSync, writeFileSync } = fs;

fs.openSync = function (file, flags, mode) {
  const fd = openSync.call(this, file, flags, mode);
  if (typeof file === "string" && pattern.test(file) && writes(flags)) {
    if (matched++ >= skip) doomed.add(fd);
  }
  return fd;
};

fs.closeSync = function (fd) {
  doomed.delete(fd);
  shortened.delete(fd);
  return closeSync.call(this, fd);
};

fs.writeSync = function (fd, data, ...rest) {
  if (!doomed.has(fd)) return writeSync.call(this, fd, data, ...rest);
  if (shortened.has(fd) || typeof data === "string") throw enospc();
  shortened.add(fd);
  const offset = typeof rest[0] === "number" ? rest[0] : 0;
  const length = typeof rest[1] === "number" ? rest[1] : data.byteLength - offset;
  const half = Math.floor(length / 2);
  if (half === 0) throw enospc();
  return writeSync.call(this, fd, data, offset, half);
};

fs.writeFileSync = function (target, ...rest) {
  if (typeof target === "number" && doomed.has(target)) throw enospc();
  return writeFileSync.call(this, target, ...rest);
};
