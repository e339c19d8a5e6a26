import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { cli, cliAsync, ROOT } from "../helpers/cli.js";
import { waitFor } from "../helpers/wait.js";

/** The queue system tests' shared setup: workers as processes, sweeps as the CLI runs them. */
export const SMA_STRATEGY = path.join(ROOT, "strategies", "sma-crossover.ts");
export const SLOW_STRATEGY = path.join(ROOT, "test", "fixtures", "strategies", "slow.ts");
/** The 175 combinations of docs/sweep.md's GOOG example. */
export const GOOG_GRID = [
  "--grid",
  "fast=5:50:5",
  "--grid",
  "slow=10:200:10",
  "--constraint",
  "fast < slow",
];

export interface WorkerProcess {
  child: ChildProcess;
  log: () => string;
}

/** `agenticbt worker --queue url …more`, its stderr kept; resolves once it is taking jobs. */
export async function startWorker(
  url: string,
  cwd: string,
  ...more: string[]
): Promise<WorkerProcess> {
  return startWorkerWithEnv(url, cwd, process.env, ...more);
}

/** startWorker with its own environment. */
export async function startWorkerWithEnv(
  url: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  ...more: string[]
): Promise<WorkerProcess> {
  const child = cliAsync(["worker", "--queue", url, ...more], cwd, env);
  let text = "";
  child.stderr?.on("data", (d: Buffer) => {
    text += d.toString();
  });
  child.stdout?.resume();
  await waitFor(() => text.includes(" on redis://") || child.exitCode !== null, 30_000);
  if (child.exitCode !== null) throw new Error(`worker exited: ${text}`);
  return { child, log: () => text };
}

/** Stops a worker (SIGTERM: its jobs under way finish) and waits for it to exit. */
export async function stopWorker(w: WorkerProcess): Promise<void> {
  if (w.child.exitCode !== null || w.child.signalCode !== null) return;
  const exited = new Promise((resolve) => w.child.once("exit", resolve));
  w.child.kill("SIGTERM");
  await exited;
}

/** The one sweep directory under a runs root's sweeps. */
export function onlySweep(runsDir: string): string {
  const root = path.join(path.dirname(runsDir), "sweeps");
  const dirs = fs.existsSync(root) ? fs.readdirSync(root) : [];
  if (dirs.length !== 1) throw new Error(`expected one sweep in ${root}, found ${dirs.length}`);
  return path.join(root, dirs[0] ?? "");
}

/**
 * results.jsonl's lines (their exact text), by combination: a sweep's lines arrive in the order
 * its threads or workers finish them, so they are compared combination by combination.
 */
export function linesByIndex(dir: string): string[] {
  const lines = fs.readFileSync(path.join(dir, "results.jsonl"), "utf8").trim().split("\n");
  const indexes = lines.map((l) => (JSON.parse(l) as { index: number }).index);
  if (new Set(indexes).size !== lines.length)
    throw new Error(`${dir}/results.jsonl has a combination twice`);
  return lines
    .map((line, k) => ({ line, index: indexes[k] ?? -1 }))
    .sort((a, b) => a.index - b.index)
    .map((l) => l.line);
}

/** The same sweep on this machine alone: its results, by combination. */
export function localSweep(work: string, args: string[]): string[] {
  const runsDir = path.join(work, "local", "runs");
  const r = cli(["sweep", ...args, "--runs-dir", runsDir, "--quiet"], work);
  if (r.status !== 0) throw new Error(`local sweep failed: ${r.stderr}`);
  return linesByIndex(onlySweep(runsDir));
}
