import path from "node:path";
import { isEnvironmentError } from "../errors/environment-error.js";
import type { RunResult } from "../rundir/run-result.js";

/**
 * What went wrong, for stderr before anything else: the error, the bar it was thrown at, and the
 * strategy's `file:line:column` to fix when it was thrown there. Null for a run without an error.
 */
export function formatRunError(r: RunResult, runDir: string, cwd = process.cwd()): string | null {
  const e = r.error;
  if (!e) return null;
  const code = r.strategy.kind === "code";
  const where = e.at === undefined ? "" : e.at === null ? " in init" : ` at ${e.at}`;
  const who =
    e.at !== undefined && code && !isEnvironmentError(e) ? "the strategy threw" : "the run failed";
  const lines = [`error: ${who}${where}: ${e.type}: ${e.message}`];
  if (e.location) lines.push(`  at ${relativeIfInside(e.location, cwd)}`);
  const dir = relativeIfInside(runDir, cwd) || ".";
  lines.push(
    e.location
      ? `Fix the strategy there and run again; the run (status ${r.status}) is in ${dir}.`
      : `The run (status ${r.status}) is in ${dir}.`,
  );
  return `${lines.join("\n")}\n`;
}

/** A path relative to cwd when it lies inside it (shorter to read), else as it is. */
export function relativeIfInside(p: string, cwd = process.cwd()): string {
  const rel = path.relative(cwd, p);
  return rel.startsWith("..") || path.isAbsolute(rel) ? p : rel;
}
