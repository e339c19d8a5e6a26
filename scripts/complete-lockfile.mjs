// The npm registry reachable here serves only some platform builds of packages such as
// @biomejs/biome, so `npm install` leaves the other platforms' optional packages out of
// package-lock.json, and `npm ci` then refuses the lock file as out of sync (npm/cli#9846).
// This adds the missing optional platform entries (os/cpu/libc read from the package name), which
// npm ci skips on non-matching platforms. Run it after changing dependencies: `npm run lock`.
import fs from "node:fs";

const file = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(fs.readFileSync(file, "utf8"));
const packages = lock.packages;
const OS = [
  "android",
  "darwin",
  "freebsd",
  "linux",
  "openbsd",
  "sunos",
  "win32",
  "aix",
  "netbsd",
  "openharmony",
];
const CPU = [
  "arm64",
  "x64",
  "ia32",
  "arm",
  "ppc64",
  "s390x",
  "riscv64",
  "loong64",
  "mips64el",
  "wasm32",
];
let added = 0;
for (const [key, entry] of Object.entries({ ...packages })) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const path = `node_modules/${name}`;
    if (packages[path] || packages[`${key}/${path}`]) continue;
    const parts = name.split("/").pop().split("-");
    const os = parts.find((p) => OS.includes(p));
    const cpu = parts.find((p) => CPU.includes(p));
    if (!os || !cpu) continue;
    const placeholder = { version, cpu: [cpu], optional: true, os: [os] };
    if (entry.dev) placeholder.dev = true;
    if (parts.includes("musl")) placeholder.libc = ["musl"];
    else if (parts.includes("gnu")) placeholder.libc = ["glibc"];
    packages[path] = placeholder;
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : 1)),
);
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: added ${added} optional platform entr${added === 1 ? "y" : "ies"}`);
