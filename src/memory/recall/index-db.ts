import fs from "node:fs";
import Database from "better-sqlite3";
import { refuseSymlink } from "../../util/no-follow.js";
import { RecallIndexError, SqliteBindingError } from "./recall-errors.js";

/**
 * Bumped whenever the schema, the chunking or the tokenization changes: an index of another
 * version is derived data built by other rules, so it is dropped and rebuilt from the files.
 */
export const INDEX_VERSION = "2";

// Chunks are versioned: a chunk row is visible at write sequence s when from_seq <= s and
// (to_seq IS NULL OR to_seq > s). Nothing is deleted, so the state any earlier recall saw stays
// queryable; `seqs` holds each sequence's simulated time and the visible set's BM25 statistics.
// `tokens` is the chunk's token list (space-separated) that the in-memory term index is built
// from.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
  path TEXT PRIMARY KEY,
  hash TEXT NOT NULL,
  stat TEXT NOT NULL,
  chunks INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS chunks (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL,
  source TEXT NOT NULL,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  text TEXT NOT NULL,
  context TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  at INTEGER,
  tier TEXT NOT NULL,
  tier_at INTEGER,
  month_first TEXT,
  month_last TEXT,
  tokens TEXT NOT NULL,
  len INTEGER NOT NULL,
  from_seq INTEGER NOT NULL,
  to_seq INTEGER
);
CREATE INDEX IF NOT EXISTS chunks_current ON chunks(path, to_seq);
CREATE INDEX IF NOT EXISTS chunks_ended ON chunks(to_seq);
CREATE TABLE IF NOT EXISTS seqs (
  seq INTEGER PRIMARY KEY,
  at INTEGER,
  live INTEGER NOT NULL,
  docs INTEGER NOT NULL,
  tokens INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS trading_days (day INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS embeddings (
  hash TEXT NOT NULL,
  model TEXT NOT NULL,
  dims INTEGER NOT NULL,
  vector BLOB NOT NULL,
  PRIMARY KEY (hash, model)
) WITHOUT ROWID;
`;

/** The index file's name and its SQLite companions' (appended to the index file's path). */
const INDEX_FILE_SUFFIXES = ["", "-wal", "-journal", "-shm"] as const;

/**
 * Opens (creating or rebuilding as needed) the index database at `file`. SQLite follows links, so
 * the file and its companions are refused (SymlinkError) when any of them is one.
 */
export function openIndexDb(file: string): Database.Database {
  checkSqliteBinding();
  for (const suffix of INDEX_FILE_SUFFIXES) refuseSymlink(`${file}${suffix}`);
  let db: Database.Database;
  try {
    db = new Database(file);
    db.pragma("busy_timeout = 5000");
    const version = currentVersion(db);
    if (version !== null && version !== INDEX_VERSION) {
      db.close();
      fs.rmSync(file, { force: true });
      db = new Database(file);
      db.pragma("busy_timeout = 5000");
    }
  } catch (err) {
    if (!isCorrupt(err)) throw indexError(file, err);
    // The index is derived from the memory files: a damaged one is simply rebuilt.
    fs.rmSync(file, { force: true });
    try {
      db = new Database(file);
    } catch (again) {
      throw indexError(file, again);
    }
  }
  try {
    db.pragma("busy_timeout = 5000");
    // A run indexes every memory write in its own transaction: without fsync a commit costs
    // microseconds. A process crash still cannot tear a transaction; an OS crash can damage the
    // file, which is then rebuilt from the memory files like any corrupt index (it is derived).
    db.pragma("synchronous = OFF");
    db.exec(SCHEMA);
    db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES ('version', ?)").run(INDEX_VERSION);
  } catch (err) {
    db.close();
    throw indexError(file, err);
  }
  return db;
}

let bindingLoads = false;

/**
 * Loads better-sqlite3's native binding once (an in-memory database), so a broken install is
 * named as one (SqliteBindingError) rather than read as a fault of the index file.
 */
function checkSqliteBinding(): void {
  if (bindingLoads) return;
  try {
    new Database(":memory:").close();
  } catch (err) {
    throw new SqliteBindingError(err);
  }
  bindingLoads = true;
}

function currentVersion(db: Database.Database): string | null {
  const table = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'")
    .get();
  if (table === undefined) return null;
  const row = db.prepare("SELECT value FROM meta WHERE key = 'version'").get() as
    | { value: string }
    | undefined;
  return row?.value ?? null;
}

/**
 * Whether `err` is SQLite finding its file no longer the database it opened: deleted or replaced
 * while open (a write then fails as "readonly database"), or its bytes overwritten (corrupt, not a
 * database, an I/O error on a page). The index is derived, so the caller rebuilds it.
 */
export function isIndexDamage(err: unknown): boolean {
  if (!(err instanceof Database.SqliteError)) return false;
  return (
    isCorrupt(err) ||
    err.code === "SQLITE_READONLY_DBMOVED" ||
    err.code === "SQLITE_CANTOPEN" ||
    err.code.startsWith("SQLITE_IOERR")
  );
}

/** Removes an index file and its companions (links are removed, never followed). */
export function removeIndexFiles(file: string): void {
  for (const suffix of INDEX_FILE_SUFFIXES) fs.rmSync(`${file}${suffix}`, { force: true });
}

function isCorrupt(err: unknown): boolean {
  return (
    err instanceof Database.SqliteError &&
    (err.code === "SQLITE_NOTADB" || err.code === "SQLITE_CORRUPT")
  );
}

function indexError(file: string, err: unknown): RecallIndexError {
  const reason = err instanceof Error ? err.message : String(err);
  return new RecallIndexError(
    `Cannot open the recall index ${file}: ${reason}. The index is derived from the run's ` +
      "memory files: check the run directory is writable, or delete index.sqlite to rebuild it.",
  );
}
