import fs from "node:fs";
import path from "node:path";
import { isErrnoCode } from "../util/errno.js";
import { lstatOrNull, readFileNoFollow, SymlinkError } from "../util/no-follow.js";

// Reads tolerate absent files and directories: a fresh run has no journal yet. Links are never
// followed (docs/run-lifecycle.md): a file that is a link is refused with a SymlinkError naming it.

export function readTextOrNull(file: string): string | null {
  const bytes = readBytesOrNull(file);
  return bytes === null ? null : bytes.toString("utf8");
}

export function readBytesOrNull(file: string): Buffer | null {
  return readFileNoFollow(file);
}

/**
 * Visible markdown entries of a directory ([] when it does not exist); temp files start with ".".
 * Links are listed (so that reading them is refused, not silently skipped); a directory that is
 * itself a link is refused, since listing it would list somewhere outside the run.
 */
export function listMarkdown(dir: string): string[] {
  if (lstatOrNull(dir)?.isSymbolicLink()) throw new SymlinkError(dir);
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if (isErrnoCode(err, "ENOENT")) return [];
    throw err;
  }
  return entries
    .filter((e) => e.name.endsWith(".md") && !e.name.startsWith("."))
    .filter((e) => e.isFile() || e.isSymbolicLink())
    .map((e) => e.name);
}

/** Only the regular files of listMarkdown: for counting, where a link is skipped, not refused. */
export function listMarkdownFiles(dir: string): string[] {
  if (lstatOrNull(dir)?.isSymbolicLink()) return [];
  return listMarkdown(dir).filter((n) => lstatOrNull(path.join(dir, n))?.isFile() ?? false);
}

export function isDirectory(dir: string): boolean {
  return lstatOrNull(dir)?.isDirectory() ?? false;
}

/** Size of a regular file; 0 when absent or not a regular file (a link is not measured). */
export function fileSize(file: string): number {
  const st = lstatOrNull(file);
  return st?.isFile() ? st.size : 0;
}
