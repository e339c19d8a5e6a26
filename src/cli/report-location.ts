import path from "node:path";
import { DEFAULT_RUNS_DIR } from "../config/run-settings.js";
import { runFile } from "../rundir/layout.js";
import { lstatOrNull } from "../util/no-follow.js";
import { relativeIfInside } from "./format-run-error.js";

/**
 * The line that ends every run: where its report.html is, or, when it was not written (a failed
 * write, a run stopped before it), the command that writes it. The run is named by its id under
 * the default runs root, by its directory anywhere else (`report` takes either).
 */
export function reportLocation(runDir: string, id: string, cwd = process.cwd()): string {
  const file = runFile(runDir, "report");
  if (lstatOrNull(file)?.isFile()) return `Report ${relativeIfInside(file, cwd)}`;
  const underDefault = path.dirname(runDir) === path.resolve(cwd, DEFAULT_RUNS_DIR);
  const run = underDefault ? id : relativeIfInside(runDir, cwd) || ".";
  return `Report not written: agenticbt report ${shellWord(run)} writes it`;
}

/** A path as one shell word, quoted only when it needs to be. */
const shellWord = (s: string) => (/^[\w./@:+-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);
