import { createHash } from "node:crypto";
import fs from "node:fs";
import type Database from "better-sqlite3";
import type { Millis } from "../../engine/types.js";
import { lstatOrNull, readFileNoFollow, SymlinkError } from "../../util/no-follow.js";
import { LESSONS_HEADING } from "../memory-layout.js";
import { RACY_MS } from "./change-probe.js";
import { type Chunk, chunkMarkdown } from "./chunk-markdown.js";
import {
  dateFile,
  type FileDating,
  listMemoryFiles,
  listVersionBackups,
  type MemoryFile,
  memoryFileAt,
} from "./memory-sources.js";
import { MemoryFileTooLargeError } from "./recall-errors.js";
import { tokens } from "./tokenize.js";

/**
 * The largest memory file recall reads (each is read whole): a journal day, a note or the playbook
 * is kilobytes, and a file of gigabytes would exhaust the process's memory before being named.
 */
export const MAX_MEMORY_FILE_BYTES = 64 * 1024 * 1024;

/** Throws MemoryFileTooLargeError for a file above MAX_MEMORY_FILE_BYTES (`size` from its lstat). */
function refuseOversized(file: string, size: number | bigint): void {
  if (size > MAX_MEMORY_FILE_BYTES) {
    throw new MemoryFileTooLargeError(file, Number(size), MAX_MEMORY_FILE_BYTES);
  }
}

export interface SyncReport {
  /** Files (re)chunked because they are new or their content hash changed. */
  indexed: number;
  /** Chunks written for those files (new versions; unchanged chunks are kept). */
  chunks: number;
  /** Files left as they were (same content). */
  skipped: number;
  /** Files gone from the run directory whose chunks were ended. */
  removed: number;
  /** Wall-clock duration of the sync. */
  ms: number;
  /** Files that could not be read (their previous chunks, if any, are kept). */
  errors: string[];
}

export interface SyncOptions {
  /** Only these run-relative paths (a write just made); default every memory file. */
  only?: readonly string[];
  /** The simulated time of the write being indexed; null when unknown (an outside edit). */
  at?: Millis | null;
}

interface FileRow {
  path: string;
  hash: string;
  stat: string;
}

/** The text that is tokenized and embedded for a chunk: its heading context, then its lines. */
export function chunkBody(context: string, text: string): string {
  return context === "" ? text : `${context}\n${text}`;
}

export function sha256(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/** The newest write sequence of the index (0 when it was never built). */
export function currentSeq(db: Database.Database): number {
  return (db.prepare("SELECT coalesce(max(seq), 0) AS s FROM seqs").get() as { s: number }).s;
}

/**
 * Brings the index in line with the memory files. A file whose size, mtime and inode are
 * unchanged (and not recently modified) is not even read, so a sync with nothing to do is one
 * stat per file; otherwise its sha256 decides: same content is skipped, new content becomes a new
 * version. A version change takes the next write sequence: chunks that differ from the file's
 * current ones are ended (to_seq) and the new ones start (from_seq); chunks that did not change
 * (earlier journal entries) stay as they are. Nothing is deleted, so any earlier state can still
 * be searched. An index that was never built is built with the history the files record (see
 * buildHistory). Writes happen in one transaction, and only when something changed.
 */
export function syncIndex(
  db: Database.Database,
  runDir: string,
  opts: SyncOptions = {},
): SyncReport {
  const started = performance.now();
  const report: SyncReport = { indexed: 0, chunks: 0, skipped: 0, removed: 0, ms: 0, errors: [] };
  if (currentSeq(db) === 0) {
    buildHistory(db, runDir, report);
    report.ms = performance.now() - started;
    return report;
  }
  const racyFrom = Date.now() - RACY_MS;
  const known = new Map<string, FileRow>();
  for (const row of db.prepare("SELECT path, hash, stat FROM files").all() as FileRow[]) {
    known.set(row.path, row);
  }
  const restat: { path: string; stat: string }[] = [];
  const reindex: { file: MemoryFile; text: string; hash: string; stat: string }[] = [];
  const present = new Set<string>();
  const files =
    opts.only === undefined
      ? listMemoryFiles(runDir)
      : opts.only.flatMap((rel) => memoryFileAt(runDir, rel) ?? []);
  for (const file of files) {
    const st = fs.lstatSync(file.abs, { bigint: true, throwIfNoEntry: false });
    // A link is never read (it could lead outside the run); it is an error, and not present.
    if (st?.isSymbolicLink()) {
      report.errors.push(`${file.path}: ${new SymlinkError(file.abs).message}`);
      continue;
    }
    if (st === undefined || !st.isFile()) continue;
    refuseOversized(file.abs, st.size);
    // Size, mtime and inode: atomic writes replace the inode, so any write shows.
    const stat = `${st.ino}:${st.size}:${st.mtimeNs}`;
    present.add(file.path);
    const row = known.get(file.path);
    // A file stamped within the racy margin may change again in the same tick: hash it.
    if (row !== undefined && row.stat === stat && Number(st.mtimeMs) < racyFrom) {
      report.skipped++;
      continue;
    }
    let bytes: Buffer | null;
    try {
      bytes = readFileNoFollow(file.abs);
    } catch (err) {
      report.errors.push(`${file.path}: ${err instanceof Error ? err.message : String(err)}`);
      if (row !== undefined) report.skipped++;
      continue;
    }
    if (bytes === null) {
      // Deleted between the stat and the read.
      present.delete(file.path);
      continue;
    }
    const hash = sha256(bytes);
    if (row !== undefined && row.hash === hash) {
      report.skipped++;
      restat.push({ path: file.path, stat });
      continue;
    }
    reindex.push({ file, text: bytes.toString("utf8"), hash, stat });
  }
  const checked =
    opts.only === undefined ? [...known.keys()] : opts.only.filter((p) => known.has(p));
  const gone = checked.filter((p) => !present.has(p));
  if (restat.length > 0 || reindex.length > 0 || gone.length > 0) {
    const write = writer(db);
    db.transaction(() => {
      for (const { path, stat } of restat) write.restat.run(stat, path);
      const version = write.version(opts.at ?? null);
      for (const path of gone) {
        version.end(path, []);
        write.dropFile.run(path);
      }
      for (const item of reindex) {
        const dating = dateFile(item.file, item.text);
        const chunks = chunkMarkdown(item.text, dating);
        report.chunks += version.end(item.file.path, chunks.map(chunkKey)).length;
        for (const c of version.fresh) {
          version.added(write.insert(item.file.path, dating, chunks[c]!, version.seq, null));
        }
        write.file.run(item.file.path, item.hash, item.stat, chunks.length);
      }
      version.close();
      write.touch.run(new Date().toISOString());
    })();
    report.indexed = reindex.length;
    report.removed = gone.length;
  }
  report.ms = performance.now() - started;
  return report;
}

/** What makes a chunk the same chunk in the next version of its file. */
function chunkKey(c: Chunk): string {
  return `${c.startLine}:${c.endLine}:${c.at}:${sha256(chunkBody(c.context, c.text))}`;
}

interface Timed {
  file: MemoryFile;
  dating: FileDating;
  chunk: Chunk;
  from: Millis | null;
  to: Millis | null;
}

/**
 * Builds an index that has no history yet from the files alone, with the history they record:
 * a journal entry exists from its `[HH:MM]` time, a playbook lesson from its stamp (the Lessons
 * heading with the first lesson), a note or review version from its attribution time until the
 * write that replaced it (the stamp of its copy in backups/). Each distinct simulated time is one
 * write sequence, in time order. What files cannot tell is the order of writes made at the same
 * simulated time (see docs/memory-recall.md).
 */
function buildHistory(db: Database.Database, runDir: string, report: SyncReport): void {
  const timed: Timed[] = [];
  const current: { file: MemoryFile; hash: string; stat: string; chunks: number }[] = [];
  for (const file of listMemoryFiles(runDir)) {
    const st = fs.lstatSync(file.abs, { bigint: true, throwIfNoEntry: false });
    if (st?.isSymbolicLink()) {
      report.errors.push(`${file.path}: ${new SymlinkError(file.abs).message}`);
      continue;
    }
    if (st === undefined || !st.isFile()) continue;
    refuseOversized(file.abs, st.size);
    let bytes: Buffer | null;
    try {
      bytes = readFileNoFollow(file.abs);
    } catch (err) {
      report.errors.push(`${file.path}: ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    if (bytes === null) continue; // deleted between the stat and the read
    const text = bytes.toString("utf8");
    const dating = dateFile(file, text);
    const chunks = chunkMarkdown(text, dating);
    current.push({
      file,
      hash: sha256(bytes),
      stat: `${st.ino}:${st.size}:${st.mtimeNs}`,
      chunks: chunks.length,
    });
    report.indexed++;
    if (file.source === "journal" || file.source === "trace" || file.source === "playbook") {
      timed.push(...appendedHistory(file, dating, chunks));
      continue;
    }
    for (const old of listVersionBackups(runDir, file)) {
      refuseOversized(old.abs, lstatOrNull(old.abs)?.size ?? 0);
      let oldText: string;
      try {
        const bytes = readFileNoFollow(old.abs);
        if (bytes === null) continue;
        oldText = bytes.toString("utf8");
      } catch (err) {
        report.errors.push(`${old.abs}: ${err instanceof Error ? err.message : String(err)}`);
        continue;
      }
      const oldDating = dateFile(file, oldText);
      for (const chunk of chunkMarkdown(oldText, oldDating)) {
        timed.push({ file, dating: oldDating, chunk, from: oldDating.fileAt, to: old.replacedAt });
      }
    }
    for (const chunk of chunks) timed.push({ file, dating, chunk, from: dating.fileAt, to: null });
  }
  const times = [
    ...new Set(timed.flatMap((t) => [t.from, t.to]).filter((t): t is Millis => t !== null)),
  ].sort((a, b) => a - b);
  // Sequence 1 is the memory before the first dated write (manual, presets, copies).
  const seqOf = new Map(times.map((t, i) => [t, i + 2]));
  const seqFor = (t: Millis | null): number => (t === null ? 1 : seqOf.get(t)!);
  const write = writer(db);
  db.transaction(() => {
    const delta = new Map<number, { docs: number; tokens: number }>();
    const bump = (seq: number, docs: number, tokens: number) => {
      const d = delta.get(seq) ?? { docs: 0, tokens: 0 };
      d.docs += docs;
      d.tokens += tokens;
      delta.set(seq, d);
    };
    for (const t of timed) {
      const from = seqFor(t.from);
      const to = t.to === null ? null : seqFor(t.to);
      if (to !== null && to <= from) continue; // replaced in the minute it was written
      const len = write.insert(t.file.path, t.dating, t.chunk, from, to);
      bump(from, 1, len);
      if (to !== null) bump(to, -1, -len);
      report.chunks++;
    }
    let docs = 0;
    let tokenTotal = 0;
    for (let seq = 1; seq <= times.length + 1; seq++) {
      const d = delta.get(seq);
      docs += d?.docs ?? 0;
      tokenTotal += d?.tokens ?? 0;
      write.seq.run(seq, seq === 1 ? null : times[seq - 2]!, 0, docs, tokenTotal);
    }
    for (const c of current) write.file.run(c.file.path, c.hash, c.stat, c.chunks);
    write.touch.run(new Date().toISOString());
  })();
}

/**
 * Journal and playbook grow by appending dated entries, so every chunk of the final file is a
 * chunk of every version since its entry was written: it exists from its own time. A journal's
 * title and the playbook's Lessons heading appear with the first entry after them.
 */
function appendedHistory(file: MemoryFile, dating: FileDating, chunks: Chunk[]): Timed[] {
  return chunks.map((chunk, i) => {
    let from = chunk.at;
    const next = chunks[i + 1]?.at;
    const opensEntries =
      file.source === "journal" || file.source === "trace"
        ? from === dating.fileAt && next !== undefined && next !== from
        : from === null && LESSONS_HEADING.test(chunk.text);
    if (opensEntries && next !== undefined) from = next;
    return { file, dating, chunk, from, to: null };
  });
}

function writer(db: Database.Database) {
  const addChunk = db.prepare(
    `INSERT INTO chunks (path, source, start_line, end_line, text, context, text_hash, at, tier,
       tier_at, month_first, month_last, tokens, len, from_seq, to_seq)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const live = db.prepare(
    `SELECT id, start_line AS s, end_line AS e, at, text_hash AS h, len
     FROM chunks WHERE path = ? AND to_seq IS NULL`,
  );
  const endChunk = db.prepare("UPDATE chunks SET to_seq = ? WHERE id = ?");
  const addSeq = db.prepare(
    "INSERT INTO seqs (seq, at, live, docs, tokens) VALUES (?, ?, ?, ?, ?)",
  );
  return {
    restat: db.prepare("UPDATE files SET stat = ? WHERE path = ?"),
    file: db.prepare("INSERT OR REPLACE INTO files (path, hash, stat, chunks) VALUES (?, ?, ?, ?)"),
    dropFile: db.prepare("DELETE FROM files WHERE path = ?"),
    touch: db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('last_change', ?)"),
    seq: addSeq,
    /** Indexes one chunk valid over [from, to); returns its length in tokens. */
    insert(path: string, dating: FileDating, c: Chunk, from: number, to: number | null): number {
      const body = chunkBody(c.context, c.text);
      const toks = tokens(body);
      addChunk.run(
        path,
        dating.source,
        c.startLine,
        c.endLine,
        c.text,
        c.context,
        sha256(body),
        c.at,
        dating.tier,
        dating.fileAt,
        dating.months?.first ?? null,
        dating.months?.last ?? null,
        toks.join(" "),
        toks.length,
        from,
        to,
      );
      return toks.length;
    },
    /**
     * The next write sequence, taken only if something changes: `end(path, keys)` ends the
     * file's current chunks not among `keys` and leaves in `fresh` the indexes of the keys that
     * are new; `close()` records the sequence with the visible set's statistics.
     */
    version(at: Millis | null) {
      const prev = db.prepare("SELECT * FROM seqs ORDER BY seq DESC LIMIT 1").get() as {
        seq: number;
        docs: number;
        tokens: number;
      };
      const seq = prev.seq + 1;
      let docs = prev.docs;
      let tokenTotal = prev.tokens;
      let changed = false;
      const self = {
        seq,
        fresh: [] as number[],
        end(path: string, keys: string[]): number[] {
          const rows = live.all(path) as {
            id: number;
            s: number;
            e: number;
            at: number | null;
            h: string;
            len: number;
          }[];
          const kept = new Map<string, number>();
          for (const r of rows) kept.set(`${r.s}:${r.e}:${r.at}:${r.h}`, r.id);
          self.fresh = [];
          keys.forEach((k, i) => {
            if (kept.has(k)) kept.delete(k);
            else self.fresh.push(i);
          });
          const ended = new Set(kept.values());
          for (const r of rows) {
            if (!ended.has(r.id)) continue;
            endChunk.run(seq, r.id);
            docs--;
            tokenTotal -= r.len;
          }
          if (ended.size > 0 || self.fresh.length > 0) changed = true;
          return self.fresh;
        },
        /** A chunk of `len` tokens was inserted at this sequence. */
        added(len: number): void {
          docs++;
          tokenTotal += len;
        },
        close(): void {
          if (changed) addSeq.run(seq, at, at === null ? 0 : 1, docs, tokenTotal);
        },
      };
      return self;
    },
  };
}
