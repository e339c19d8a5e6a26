import fs from "node:fs";
import path from "node:path";
import { UsageError } from "../errors/run-errors.js";
import { refuseSymlink } from "../util/no-follow.js";
import { runFile } from "./layout.js";

/**
 * A run named by the user: a directory path, an id under the runs root, or a unique prefix of
 * one (ids start with the date, so `20261122-0735` is usually enough). A run directory that is a
 * symbolic link is refused (SymlinkError), as rm refuses it: every command reads or writes in the
 * run (report.html, index.sqlite), which through a link would be outside the runs root.
 */
export function resolveRunDir(name: string, runsRoot: string): string {
  const dir = findRunDir(name, runsRoot);
  refuseSymlink(dir);
  return dir;
}

function findRunDir(name: string, runsRoot: string): string {
  const candidates = [path.resolve(name), path.join(runsRoot, name)];
  for (const c of candidates) {
    if (fs.existsSync(runFile(c, "config"))) return c;
  }
  const ids = fs.existsSync(runsRoot)
    ? fs
        .readdirSync(runsRoot)
        .filter((d) => d.startsWith(name))
        .sort()
    : [];
  if (ids.length === 1) return path.join(runsRoot, ids[0] as string);
  if (ids.length > 1) {
    throw new UsageError(
      `"${name}" matches ${ids.length} runs in ${runsRoot}; give more of the id: ${ids.slice(0, 5).join(", ")}${ids.length > 5 ? ` and ${ids.length - 5} more (agenticbt list shows them all)` : ""}`,
    );
  }
  throw new UsageError(
    `No run "${name}": not a run directory, and no run id in ${runsRoot} starts with it. Run ids are the directory names there.`,
  );
}
