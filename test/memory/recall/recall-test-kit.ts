import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fse from "fs-extra";

export const FIXTURE = fileURLToPath(new URL("../../fixtures/memory-workspace/", import.meta.url));

/** Simulated time from "YYYY-MM-DDTHH:MM" (UTC, like the workspace's clock). */
export const at = (wallClock: string): number => Date.parse(`${wallClock}:00Z`);

/** A fresh temp directory; `cleanup` removes it. */
export function tempDir(prefix = "abt-recall-"): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A copy of the fixture run directory inside `parent`, so tests may edit it and index it. */
export function copyFixture(parent: string): string {
  const run = path.join(parent, "run");
  fse.copySync(FIXTURE, run);
  return run;
}

/** The cited lines of a file (1-based, inclusive). */
export function citedLines(runDir: string, rel: string, start: number, end: number): string {
  const lines = fs.readFileSync(path.join(runDir, rel), "utf8").split("\n");
  return lines.slice(start - 1, end).join("\n");
}

export const where = (cs: readonly { path: string; startLine: number }[]): string[] =>
  cs.map((c) => `${c.path}:${c.startLine}`);
