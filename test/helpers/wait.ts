import type { ChildProcess } from "node:child_process";
import fs from "node:fs";

/** Polls `check` every `everyMs` until it holds; throws once `timeoutMs` have passed. */
export async function waitFor(
  check: () => boolean,
  timeoutMs: number,
  everyMs = 20,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The child's exit code once it has exited (null when a signal ended it). */
export function waitExit(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on("exit", (code) => resolve(code)));
}

/**
 * Waits until the slow.ts fixture's `mark` file (it writes the index of each bar it sleeps in)
 * names bar `bar` or a later one: the run is past that bar, however loaded the machine is.
 */
export async function barReached(mark: string, bar: number, timeoutMs = 30_000): Promise<void> {
  await waitFor(() => {
    try {
      return Number(fs.readFileSync(mark, "utf8")) >= bar;
    } catch {
      return false;
    }
  }, timeoutMs);
}

/** Drains the child's stdout and keeps its stderr; resolves with its exit code and stderr once
 * it has exited and its output is read to the end. */
export function exited(child: ChildProcess): Promise<{ code: number | null; stderr: string }> {
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdout?.resume();
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stderr })));
}
