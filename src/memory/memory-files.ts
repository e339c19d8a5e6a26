import fs from "node:fs";
import path from "node:path";
import { isErrnoCode } from "../util/errno.js";

// Reads tolerate absent files and directories: a fresh run has no journal yet.

export function readTextOrNull(file: string): string | null {
  const bytes = readBytesOrNull(file);
  return bytes === null ? null : bytes.toString("utf8");
}

export function readBytesOrNull(file: string): Buffer | null {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    if (isErrnoCode(err, "ENOENT")) return null;
    throw err;
  }
}

/** Visible markdown files of a directory ([] when it does not exist); temp files start with ".". */
export function listMarkdown(dir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (err) {
    if (isErrnoCode(err, "ENOENT")) return [];
    throw err;
  }
  return names.filter((n) => n.endsWith(".md") && !n.startsWith(".") && isFile(path.join(dir, n)));
}

function isFile(file: string): boolean {
  return fs.statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
}

export function isDirectory(dir: string): boolean {
  return fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

export function fileSize(file: string): number {
  return fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
}
