import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const PRELOAD = pathToFileURL(path.join(import.meta.dirname, "enospc-preload.mjs")).href;

/**
 * The environment of a CLI child whose writes to files matching `pattern` fail with ENOSPC (after
 * `skip` matching opens that work): see enospc-preload.mjs. It goes through the same fs calls a
 * real full disk fails in, for machines where a test cannot mount a small file system.
 */
export function enospcEnv(pattern: string, skip = 0): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${PRELOAD}`.trim(),
    AGENTICBT_ENOSPC_FILE: pattern,
    AGENTICBT_ENOSPC_SKIP: String(skip),
  };
}

/** A real small tmpfs mounted at `dir` (root on Linux only); null where mounting is not allowed. */
export function mountTmpfs(dir: string, sizeKb: number): { dir: string; unmount(): void } | null {
  // AGENTICBT_TEST_NO_TMPFS=1 runs the injected fallback on a machine that could mount.
  if (process.env.AGENTICBT_TEST_NO_TMPFS === "1") return null;
  if (process.platform !== "linux" || process.getuid?.() !== 0) return null;
  fs.mkdirSync(dir, { recursive: true });
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${sizeKb}k`, "tmpfs", dir]);
  if (r.status !== 0) return null;
  return { dir, unmount: () => void spawnSync("umount", ["-l", dir]) };
}

/** Fills the file system holding `dir` until a write fails, then frees `leaveKb`. */
export function fillDisk(dir: string, leaveKb: number): void {
  const filler = path.join(dir, "filler");
  const fd = fs.openSync(filler, "w");
  const chunk = Buffer.alloc(4096, 120);
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch {
    // ENOSPC: full.
  }
  fs.closeSync(fd);
  if (leaveKb > 0) {
    const size = fs.statSync(filler).size;
    fs.truncateSync(filler, Math.max(0, size - leaveKb * 1024));
  }
}
