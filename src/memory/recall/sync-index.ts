import { createHash } from "node:crypto";
import fs from "node:fs";
import type Database from "better-sqlite3";
import { readFileNoFollow, SymlinkError } from "../../util/no-follow.js";
import { RACY_MS } from "./change-probe.js";
import { chunkMarkdown } from "./chunk-markdown.js";
import { dateFile, listMemoryFiles, type MemoryFile } from "./memory-sources.js";
import { tokens } from "./tokenize.js";

export interface SyncReport {
  /** Files (re)chunked because they are new or their content hash changed. */
  indexed: number;
  /** Chunks written for those files. */
  chunks: number;
  /** Files left as they were (same content). */
  skipped: number;
  /** Files gone from the run directory whose chunks were dropped. */
  removed: number;
  /** Wall-clock duration of the sync. */
  ms: number;
  /** Files that could not be read (their previous chunks, if any, are kept). */
  errors: string[];
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

/**
 * Brings the index in line with the memory files. A file whose size, mtime and inode are
 * unchanged (and not recently modified) is not even read, so a sync with nothing to do is one
 * stat per file; otherwise its sha256 decides: same content is skipped, new content has its chunks replaced. Writes happen in
 * one transaction, and only when something changed, so readers never see a half-synced index.
 */
export function syncIndex(db: Database.Database, runDir: string): SyncReport {
  const started = performance.now();
  const racyFrom = Date.now() - RACY_MS;
  const known = new Map<string, FileRow>();
  for (const row of db.prepare("SELECT path, hash, stat FROM files").all() as FileRow[]) {
    known.set(row.path, row);
  }
  const report: SyncReport = { indexed: 0, chunks: 0, skipped: 0, removed: 0, ms: 0, errors: [] };
  const restat: { path: string; stat: string }[] = [];
  const reindex: { file: MemoryFile; text: string; hash: string; stat: string }[] = [];
  const present = new Set<string>();
  for (const file of listMemoryFiles(runDir)) {
    const st = fs.lstatSync(file.abs, { bigint: true, throwIfNoEntry: false });
    // A link is never read (it could lead outside the run); it is an error, and not present.
    if (st?.isSymbolicLink()) {
      report.errors.push(`${file.path}: ${new SymlinkError(file.abs).message}`);
      continue;
    }
    if (st === undefined || !st.isFile()) continue;
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
  const gone = [...known.keys()].filter((p) => !present.has(p));
  if (restat.length > 0 || reindex.length > 0 || gone.length > 0) {
    const write = writer(db);
    db.transaction(() => {
      for (const { path, stat } of restat) write.restat.run(stat, path);
      for (const path of gone) write.drop(path);
      for (const item of reindex) {
        write.drop(item.file.path);
        const count = write.insert(item.file, item.text);
        report.chunks += count;
        write.file.run(item.file.path, item.hash, item.stat, count);
      }
      write.touch.run(new Date().toISOString());
    })();
    report.indexed = reindex.length;
    report.removed = gone.length;
  }
  report.ms = performance.now() - started;
  return report;
}

function writer(db: Database.Database) {
  const dropFts = db.prepare(
    "DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE path = ?)",
  );
  const dropChunks = db.prepare("DELETE FROM chunks WHERE path = ?");
  const dropFile = db.prepare("DELETE FROM files WHERE path = ?");
  const addChunk = db.prepare(
    `INSERT INTO chunks (path, source, start_line, end_line, text, context, text_hash, at, tier, tier_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const addFts = db.prepare("INSERT INTO chunks_fts (rowid, tokens) VALUES (?, ?)");
  return {
    restat: db.prepare("UPDATE files SET stat = ? WHERE path = ?"),
    file: db.prepare("INSERT OR REPLACE INTO files (path, hash, stat, chunks) VALUES (?, ?, ?, ?)"),
    touch: db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('last_change', ?)"),
    drop(path: string): void {
      dropFts.run(path);
      dropChunks.run(path);
      dropFile.run(path);
    },
    /** Chunks and indexes one file; returns the number of chunks. */
    insert(file: MemoryFile, text: string): number {
      const dating = dateFile(file, text);
      const chunks = chunkMarkdown(text, dating);
      for (const c of chunks) {
        const body = chunkBody(c.context, c.text);
        const info = addChunk.run(
          file.path,
          dating.source,
          c.startLine,
          c.endLine,
          c.text,
          c.context,
          sha256(body),
          c.at,
          dating.tier,
          dating.fileAt,
        );
        addFts.run(info.lastInsertRowid, tokens(body).join(" "));
      }
      return chunks.length;
    },
  };
}
