import fs from "node:fs";
import path from "node:path";
import { isErrnoCode } from "./errno.js";

/**
 * A path inside a run directory or a memory source is a symbolic link. Links are never followed
 * there: one could lead anywhere (`/proc/self/environ` holds the API key), so a read would copy
 * that file into the run and a write would change it.
 */
export class SymlinkError extends Error {
  override readonly name = "SymlinkError";
  /** Bad input (a tampered run directory or memory source), like every input error. */
  readonly exitCode = 2;
  readonly file: string;

  constructor(file: string) {
    super(
      `Refusing ${file}: it is a symbolic link, and agenticbt never reads or writes through a ` +
        "link in a run directory or memory source (it could lead to a file outside, such as " +
        "/proc/self/environ). Replace the link with a regular file or directory, or remove it.",
    );
    this.file = file;
  }
}

/** A path that must be a regular file is something else (a directory, a FIFO, a device). */
export class NotAFileError extends Error {
  override readonly name = "NotAFileError";
  readonly exitCode = 2;
  readonly file: string;

  constructor(file: string) {
    super(`Refusing ${file}: it is not a regular file. Replace it with one, or remove it.`);
    this.file = file;
  }
}

// O_NOFOLLOW makes open() fail on a link at the last component, with no window between a check
// and the open. Windows has no such flag: there an lstat just before the open stands in for it.
const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
// A FIFO planted under a file's name would block a plain open forever.
const NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

/** lstat, or null when nothing is there (ENOTDIR: a parent on the way is a file). */
export function lstatOrNull(file: string): fs.Stats | null {
  try {
    return fs.lstatSync(file, { throwIfNoEntry: false }) ?? null;
  } catch (err) {
    if (isErrnoCode(err, "ENOTDIR")) return null;
    throw err;
  }
}

/** Throws SymlinkError when `file` is a link; an absent file is fine. */
export function refuseSymlink(file: string): void {
  if (lstatOrNull(file)?.isSymbolicLink()) throw new SymlinkError(file);
}

/**
 * Throws SymlinkError when any existing component of `file` below `root` (the directories on the
 * way and the file itself) is a link. `root` itself is the caller's to trust or check.
 */
export function refuseSymlinkBelow(root: string, file: string): void {
  let current = path.resolve(root);
  for (const part of partsBelow(current, path.resolve(file))) {
    current = path.join(current, part);
    const st = lstatOrNull(current);
    if (st === null) return;
    if (st.isSymbolicLink()) throw new SymlinkError(current);
  }
}

/** Creates `dir` below `root` one level at a time, refusing a level that is a link. */
export function mkdirBelow(root: string, dir: string): void {
  let current = path.resolve(root);
  for (const part of partsBelow(current, path.resolve(dir))) {
    current = path.join(current, part);
    if (lstatOrNull(current) === null) {
      try {
        fs.mkdirSync(current);
      } catch (err) {
        if (!isErrnoCode(err, "EEXIST")) throw err;
      }
    }
    // Checked after a possible mkdir too: another process may have won the race with a link.
    if (lstatOrNull(current)?.isSymbolicLink()) throw new SymlinkError(current);
  }
}

/** A regular file's bytes, or null when it does not exist; a link is refused, never followed. */
export function readFileNoFollow(file: string): Buffer | null {
  const fd = openFileNoFollow(file, "read");
  if (fd === null) return null;
  try {
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * An existing regular file opened for reading (or reading and writing) without following a link:
 * null when it does not exist, SymlinkError for a link, NotAFileError for anything but a regular
 * file (a FIFO is opened non-blocking, so it cannot hang the open). Close the returned descriptor.
 */
export function openFileNoFollow(file: string, mode: "read" | "read-write"): number | null {
  if (NOFOLLOW === 0) refuseSymlink(file);
  const access = mode === "read" ? fs.constants.O_RDONLY : fs.constants.O_RDWR;
  let fd: number;
  try {
    fd = fs.openSync(file, access | NOFOLLOW | NONBLOCK);
  } catch (err) {
    if (isErrnoCode(err, "ENOENT")) return null;
    throw asSymlinkError(file, err);
  }
  if (!fs.fstatSync(fd).isFile()) {
    fs.closeSync(fd);
    throw new NotAFileError(file);
  }
  return fd;
}

/**
 * Opens `file` for writing (created if absent) without following a link: `append` adds at the
 * end, otherwise the caller writes or truncates at will. Close the returned descriptor.
 */
export function openWriteNoFollow(file: string, opts: { append: boolean }): number {
  if (NOFOLLOW === 0) refuseSymlink(file);
  const { O_WRONLY, O_CREAT, O_APPEND } = fs.constants;
  try {
    return fs.openSync(file, O_WRONLY | O_CREAT | NOFOLLOW | (opts.append ? O_APPEND : 0), 0o666);
  } catch (err) {
    throw asSymlinkError(file, err);
  }
}

/** ELOOP is what O_NOFOLLOW gives for a link (EMLINK on FreeBSD): confirm and name it. */
function asSymlinkError(file: string, err: unknown): unknown {
  if (isErrnoCode(err, "ELOOP") || isErrnoCode(err, "EMLINK")) {
    if (lstatOrNull(file)?.isSymbolicLink()) return new SymlinkError(file);
  }
  return err;
}

function partsBelow(root: string, file: string): string[] {
  const rel = path.relative(root, file);
  if (rel === "") return [];
  if (rel === ".." || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) {
    throw new RangeError(`${file} is not inside ${root}`);
  }
  return rel.split(path.sep);
}
