import { type SpawnSyncReturns, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "..", "..");
export const BIN = path.join(ROOT, "bin", "agenticbt");
export const DATA = path.join(ROOT, "data");

/** A fresh temp directory, removed by the caller's afterEach when wanted. */
export function tempDir(prefix = "agenticbt-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * `run <strategy> --data <data…> --runs-dir <runsDir> …more`, the list most CLI tests start from.
 * A relative strategy path is taken from the repository root (strategies/…, test/fixtures/…).
 */
export function runArgs(
  strategy: string,
  data: string | readonly string[],
  runsDir: string,
  ...more: string[]
): string[] {
  const files = typeof data === "string" ? [data] : data;
  return ["run", path.resolve(ROOT, strategy), "--data", ...files, "--runs-dir", runsDir, ...more];
}

/** `run --replay <run> --runs-dir <runsDir> …more`. */
export function replayArgs(run: string, runsDir: string, ...more: string[]): string[] {
  return ["run", "--replay", run, "--runs-dir", runsDir, ...more];
}

/** Runs the built CLI (`npm test` builds first) as a user would. */
export function cli(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    env,
    encoding: "utf8",
    maxBuffer: 1 << 26,
  });
}

export function cliAsync(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  return spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
}

export function runDirs(runsRoot: string): string[] {
  if (!fs.existsSync(runsRoot)) return [];
  return fs
    .readdirSync(runsRoot)
    .sort()
    .map((d) => path.join(runsRoot, d));
}

export function readJson<T = Record<string, unknown>>(file: string): T {
  return JSON.parse(fs.readFileSync(file, "utf8")) as T;
}

/** A run's result.json without what differs between two runs of the same inputs: id, clock
 * times, resumes, the index's last sync. */
export function comparableResult(dir: string): Record<string, unknown> {
  const r = readJson(path.join(dir, "result.json"));
  for (const key of ["id", "timings", "startedAt", "finishedAt", "resumed"]) delete r[key];
  const index = r.index as { lastSync?: unknown } | undefined;
  if (index) delete index.lastSync;
  return r;
}

/** Runs the CLI without blocking this process: needed when the test itself serves HTTP to it. */
export function cliRun(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = cliAsync(args, cwd, env);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve) =>
    child.on("close", (status) => resolve({ status, stdout, stderr })),
  );
}
