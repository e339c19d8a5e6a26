import fs from "node:fs";
import path from "node:path";
import { threadId } from "node:worker_threads";
import { readFileNoFollow, refuseSymlink, SymlinkError } from "./no-follow.js";

/**
 * A file could not be written. The target keeps its previous content (or stays absent), because
 * the new bytes only ever reach it through a single rename.
 */
export class AtomicWriteError extends Error {
  override readonly name = "AtomicWriteError";
  readonly file: string;
  /** A full disk is not something an agent's tool call can fix: the run fails with it. */
  readonly fatal = true;

  constructor(file: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `Could not write ${file}: ${reason}. Its previous content is unchanged; check that the ` +
        "directory exists, is a directory, is writable and that the disk is not full.",
      { cause },
    );
    this.file = file;
  }
}

// Distinguishes temp files of concurrent writes from the same process (pid alone would collide);
// a worker thread's counter is its own, so its thread id is part of the name too.
let tempCounter = 0;
const tempTag = threadId === 0 ? `${process.pid}` : `${process.pid}-${threadId}`;

/**
 * Replaces `file` with `data` so that a reader or a crash sees either the old or the new content,
 * never a mix: the bytes go to a temp file in the same directory (rename is only atomic within one
 * file system), are flushed to disk, and then the temp file is renamed over the target.
 *
 * Links are never written through: a target that is a link is refused (SymlinkError); the temp
 * file is created exclusively ("wx" fails on any existing name, a dangling link included); and a
 * link planted after the check is replaced by the rename, not followed.
 */
export function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  options: AtomicOptions = {},
): void {
  writeFileAtomicWith(file, (fd) => fs.writeFileSync(fd, data), options);
}

export interface AtomicOptions {
  /**
   * false: skip the fsyncs. The file is still whole or absent after the process dies (kill -9);
   * only a power cut may lose the newest version. For files rewritten very often whose loss is
   * harmless (the run checkpoint, which a resume verifies). Default true.
   */
  sync?: boolean;
}

/** Receives text piece by piece; buffers it so a million small writes cost a few large ones. */
export interface TextSink {
  write(text: string): void;
}

const SINK_BUFFER = 1 << 20;
/** Small writes (a CSV row, a JSON line) are joined into strings of about 64 KiB first: one
 * encoding into the buffer per piece, not per row. */
const PIECE = 1 << 16;

/**
 * Like `writeFileAtomic`, for output too large to build as one string (a million-row CSV): the
 * producer writes pieces, which go through a 1 MiB buffer into the temp file.
 */
export function writeTextAtomic(file: string, produce: (sink: TextSink) => void): void {
  writeFileAtomicWith(file, (fd, temp) => {
    const buf = Buffer.allocUnsafe(SINK_BUFFER);
    const behind = new FlushBehind(temp);
    let off = 0;
    const flush = () => {
      let done = 0;
      while (done < off) done += fs.writeSync(fd, buf, done, off - done);
      behind.wrote(off);
      off = 0;
    };
    const put = (text: string) => {
      // Worst case 3 bytes per UTF-16 unit; pieces are small, so this rarely flushes early.
      if (off + text.length * 3 > SINK_BUFFER) {
        flush();
        if (text.length * 3 > SINK_BUFFER) {
          behind.wrote(fs.writeSync(fd, text));
          return;
        }
      }
      off += buf.write(text, off, "utf8");
    };
    let piece = "";
    try {
      produce({
        write(text: string) {
          piece += text;
          if (piece.length >= PIECE) {
            put(piece);
            piece = "";
          }
        },
      });
      if (piece !== "") put(piece);
      flush();
    } finally {
      behind.end();
    }
  });
}

/** Every this many bytes written, the bytes so far start going to disk in the background. */
const FLUSH_BEHIND = 8 << 20;

/**
 * Starts writing a large temp file's bytes to disk while more are produced (an `fdatasync` on the
 * thread pool every 8 MiB, through a second, read-only descriptor), so that the one `fsync` that
 * makes the file durable finds little left to do. Best effort: a platform or file where this
 * fails just skips it; the final `fsync` is what reports errors.
 */
class FlushBehind {
  private fd: number | null = null;
  private unsynced = 0;
  private pending = 0;
  private ended = false;

  constructor(private readonly temp: string) {}

  wrote(bytes: number): void {
    this.unsynced += bytes;
    if (this.unsynced < FLUSH_BEHIND) return;
    this.unsynced = 0;
    const fd = this.open();
    if (fd === null) return;
    this.pending++;
    fs.fdatasync(fd, () => {
      this.pending--;
      this.closeIfDone();
    });
  }

  /** No more syncs; the descriptor closes once those in flight are done. */
  end(): void {
    this.ended = true;
    this.closeIfDone();
  }

  private open(): number | null {
    // Windows: a read-only handle cannot flush, and holding one open is not worth the risk.
    if (this.fd === null) this.fd = process.platform === "win32" ? -1 : openToSync(this.temp);
    return this.fd >= 0 ? this.fd : null;
  }

  private closeIfDone(): void {
    if (!this.ended || this.pending > 0 || this.fd === null) return;
    if (this.fd >= 0) closeQuietly(this.fd);
    this.fd = null;
  }
}

/** `writeFileAtomic` whose content the caller writes into the temp file's descriptor (several
 * buffers with no copy into one). */
export function writeFileAtomicWith(
  file: string,
  writeContent: (fd: number, temp: string) => void,
  options: AtomicOptions = {},
): void {
  const sync = options.sync ?? true;
  const dir = path.dirname(path.resolve(file));
  tempCounter += 1;
  // A leading dot keeps a stray temp file (after a crash) out of directory listings of *.md files.
  const temp = path.join(dir, `.${path.basename(file)}.${tempTag}.${tempCounter}.tmp`);
  refuseSymlink(file);
  let fd: number | null = null;
  try {
    fs.mkdirSync(dir, { recursive: true });
    fd = fs.openSync(temp, "wx");
    writeContent(fd, temp);
    if (sync) fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = null;
    fs.renameSync(temp, file);
  } catch (err) {
    if (fd !== null) closeQuietly(fd);
    removeQuietly(temp);
    throw new AtomicWriteError(file, err);
  }
  if (sync) syncDirectory(dir);
}

/**
 * Appends by rewriting the whole file atomically. That costs a read per append, which is fine for
 * the small per-day files this is used for, and it keeps a half-written line out of the file.
 */
export function appendFileAtomic(file: string, text: string): void {
  writeFileAtomic(file, readTextOrEmpty(file) + text);
}

/** Writes `value` as pretty-printed JSON with a trailing newline, atomically. */
export function writeJsonAtomic(file: string, value: unknown, options: AtomicOptions = {}): void {
  writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`, options);
}

function readTextOrEmpty(file: string): string {
  let bytes: Buffer | null;
  try {
    bytes = readFileNoFollow(file);
  } catch (err) {
    if (err instanceof SymlinkError) throw err;
    throw new AtomicWriteError(file, err);
  }
  return bytes === null ? "" : bytes.toString("utf8");
}

/** A second descriptor of a temp file, to sync it from; -1 when it cannot be opened. */
function openToSync(temp: string): number {
  try {
    // O_NOFOLLOW: the temp file is this process's, created exclusively; never a link's target.
    return fs.openSync(temp, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  } catch {
    return -1;
  }
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // The write already failed; that error is the one worth reporting.
  }
}

function removeQuietly(file: string): void {
  try {
    fs.rmSync(file, { force: true });
  } catch {
    // Nothing to remove when the directory itself was unusable.
  }
}

/** Makes the rename itself durable. Some platforms (Windows) cannot open directories: best effort. */
function syncDirectory(dir: string): void {
  let fd: number | null = null;
  try {
    fd = fs.openSync(dir, "r");
    fs.fsyncSync(fd);
  } catch {
    // The content is already in place; only durability across a power cut is weaker here.
  } finally {
    if (fd !== null) closeQuietly(fd);
  }
}
