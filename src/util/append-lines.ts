import fs from "node:fs";
import { openFileNoFollow, openWriteNoFollow, SymlinkError } from "./no-follow.js";

/**
 * Lines could not be appended to a JSONL file (disk full, quota, I/O error). The file is left as
 * it was before the append: whatever part of the lines reached it was cut off again.
 */
export class AppendError extends Error {
  override readonly name = "AppendError";
  readonly file: string;
  /** Not something an agent's tool call can fix: the run fails (see the tool dispatcher). */
  readonly fatal = true;

  constructor(file: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `Could not append to ${file}: ${reason}. The file keeps its earlier lines only; free disk ` +
        "space (or fix the directory's permissions) and run again.",
      { cause },
    );
    this.file = file;
  }
}

/**
 * Appends complete lines (`text` must end with "\n") to a file that is never followed through a
 * link. The bytes go out in one write call when the kernel takes them all; on a short write the
 * rest follows, and if any write fails the file is truncated back to its size before the append,
 * so a reader never sees a partial line left by this process (a kill -9 in the middle of the
 * write can still leave one: `truncatePartialLastLine` removes it when the file is reopened).
 */
export function appendLines(file: string, text: string): void {
  if (!text.endsWith("\n")) throw new RangeError(`appendLines: text for ${file} must end in "\\n"`);
  const bytes = Buffer.from(text, "utf8");
  let fd: number;
  try {
    fd = openWriteNoFollow(file, { append: true });
  } catch (err) {
    if (err instanceof SymlinkError) throw err;
    throw new AppendError(file, err);
  }
  let sizeBefore = -1;
  try {
    sizeBefore = fs.fstatSync(fd).size;
    let done = 0;
    while (done < bytes.length) done += fs.writeSync(fd, bytes, done, bytes.length - done);
  } catch (err) {
    if (sizeBefore >= 0) {
      try {
        fs.ftruncateSync(fd, sizeBefore);
      } catch {
        // Truncating frees space and rarely fails; the append error is the one to report.
      }
    }
    throw new AppendError(file, err);
  } finally {
    fs.closeSync(fd);
  }
}

const TAIL_CHUNK = 64 * 1024;

/**
 * Cuts a partial last line (bytes after the last "\n", the trace of a process killed in the middle
 * of an append) off a JSONL file, so that the next append starts on a fresh line. Call it when
 * reopening a file to append to it (a resumed run). Reads only the tail of the file, backwards, so
 * it costs the same for a 1 GB transcript as for a small one. A file that is absent, empty or
 * ends in "\n" is left alone. A link is refused (SymlinkError), never followed. Returns the number
 * of bytes removed.
 */
export function truncatePartialLastLine(file: string): number {
  const fd = openFileNoFollow(file, "read-write");
  if (fd === null) return 0;
  try {
    const size = fs.fstatSync(fd).size;
    if (size === 0) return 0;
    const keep = endOfLastLine(fd, size);
    if (keep === size) return 0;
    fs.ftruncateSync(fd, keep);
    return size - keep;
  } finally {
    fs.closeSync(fd);
  }
}

/** The offset just after the last "\n" of the file (0 when it has none). */
function endOfLastLine(fd: number, size: number): number {
  const buf = Buffer.allocUnsafe(TAIL_CHUNK);
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - TAIL_CHUNK);
    const n = fs.readSync(fd, buf, 0, end - start, start);
    const at = buf.subarray(0, n).lastIndexOf(0x0a);
    if (at >= 0) return start + at + 1;
    end = start;
  }
  return 0;
}
