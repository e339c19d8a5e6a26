import fs from "node:fs";
import path from "node:path";
import type { Millis } from "../engine/types.js";
import { writeFileAtomic } from "../util/atomic-write.js";
import {
  lstatOrNull,
  mkdirBelow,
  readFileNoFollow,
  refuseSymlink,
  refuseSymlinkBelow,
  SymlinkError,
} from "../util/no-follow.js";
import { attributionLine, stripAttribution } from "./attribution.js";
import { MemoryInputError, MemoryPathError } from "./memory-errors.js";
import { fileSize, isDirectory, listMarkdown, listMarkdownFiles } from "./memory-files.js";
import {
  MemoryKeyError,
  type ReviewPeriod,
  validateMemoryKey,
  validatePeriodKey,
} from "./memory-key.js";
import {
  JOURNAL_ENTRY,
  LESSONS_HEADING,
  MEMORY_DIRS,
  PLAYBOOK_FILE,
  PLAYBOOK_KEY,
  TRACES_DIR,
} from "./memory-layout.js";
import { clockKey, compactStamp, dayKey, minuteStamp } from "./sim-time.js";

const TOP_HEADING = /^#{1,2}\s/;

export interface LogResult {
  /** Relative to the run directory, with "/" separators. */
  path: string;
  /** 1-based line on which the entry starts. */
  line: number;
}

export interface WriteResult {
  path: string;
  /** Where the replaced version was kept, or null when nothing was replaced. */
  backup: string | null;
}

/** A file to put into a new run's memory, read and checked before the run directory exists. */
export interface MemorySeed {
  /** Relative to the run directory, with "/" separators. */
  path: string;
  data: Buffer;
}

export interface MemoryStats {
  journalFiles: number;
  journalEntries: number;
  notes: number;
  reviews: number;
  /** Size of the live memory (playbook, journal, notes, reviews); backups are not counted. */
  bytes: number;
}

/**
 * The agent's file-based memory inside one run directory. Files are the source of truth (any
 * index is derived from them); every write is atomic, attributed to the simulated time and the
 * run, and confined to the run directory: no file or directory below it is read or written
 * through a symbolic link (a planted link is refused with a SymlinkError naming it).
 */
export class MemoryWorkspace {
  readonly dir: string;
  readonly runId: string;

  constructor(opts: { dir: string; runId: string }) {
    // The run id goes into an HTML comment on one line; these would end or break that comment.
    if (opts.runId.length === 0 || /[\r\n]/.test(opts.runId) || opts.runId.includes("--")) {
      throw new MemoryInputError(
        `Run id ${JSON.stringify(opts.runId)} cannot be used to attribute memory writes. ` +
          'Use a non-empty id on one line without "--".',
      );
    }
    this.dir = path.resolve(opts.dir);
    this.runId = opts.runId;
  }

  /** Creates the layout and the playbook (the strategy's manual) unless one is already there. */
  init(playbookText: string): void {
    fs.mkdirSync(this.dir, { recursive: true });
    for (const sub of MEMORY_DIRS) mkdirBelow(this.dir, path.join(this.dir, sub));
    const file = this.writable(PLAYBOOK_FILE);
    if (lstatOrNull(file) === null) {
      writeFileAtomic(file, withFinalNewline(normalize(playbookText)));
    }
  }

  /** Appends `[HH:MM] content` to the journal of the simulated day. */
  log(content: string, at: Millis): LogResult {
    return this.appendEntry("journal", "Journal", nonEmpty(content, "memory_log"), at);
  }

  /** Appends a decision's trace `[HH:MM] content` to `traces/<day>.md` (the framework's). */
  trace(content: string, at: Millis): LogResult {
    return this.appendEntry(TRACES_DIR, "Decision traces", nonEmpty(content, "trace"), at);
  }

  private appendEntry(dir: string, title: string, body: string, at: Millis): LogResult {
    const day = dayKey(at);
    const rel = `${dir}/${day}.md`;
    const file = this.writable(rel);
    let text = this.readText(rel) ?? "";
    if (text === "") text = `# ${title} ${day}\n\n`;
    if (!text.endsWith("\n")) text += "\n";
    const line = countLines(text) + 1;
    writeFileAtomic(file, `${text}${indentEntry(`[${clockKey(at)}] `, body).join("\n")}\n`);
    return { path: rel, line };
  }

  /** Overwrites `notes/<key>.md`, keeping the previous version; `playbook` appends a lesson. */
  note(key: string, content: string, at: Millis): WriteResult {
    validateMemoryKey(key);
    if (key === PLAYBOOK_KEY) return this.appendLesson(content, at);
    return this.writeAttributed(`notes/${key}.md`, content, at);
  }

  /** Writes `reviews/week_<YYYY-Www>.md` or `reviews/month_<YYYY-MM>.md`. */
  review(period: ReviewPeriod, periodKey: string, content: string, at: Millis): WriteResult {
    validatePeriodKey(period, periodKey);
    return this.writeAttributed(`reviews/${period}_${periodKey}.md`, content, at);
  }

  /** The note's content without its attribution line and final newline, or null if absent. */
  readNote(key: string): string | null {
    validateMemoryKey(key);
    if (key === PLAYBOOK_KEY) return this.readPlaybook();
    const text = this.readText(`notes/${key}.md`);
    return text === null ? null : stripAttribution(text).replace(/\n$/, "");
  }

  /**
   * Moves the note into backups (nothing is ever lost). `at` names the backup by the simulated
   * time of the deletion; without it the backup is labelled "deleted". Returns the backup path, or
   * null when there was no such note.
   */
  deleteNote(key: string, at?: Millis): string | null {
    validateMemoryKey(key);
    if (key === PLAYBOOK_KEY) {
      throw new MemoryInputError(
        'The playbook cannot be deleted. Add a lesson with memory_note("playbook", …) instead.',
      );
    }
    const rel = `notes/${key}.md`;
    const file = this.writable(rel);
    if (lstatOrNull(file) === null) return null;
    const backupRel = this.freeBackupPath(rel, at === undefined ? "deleted" : compactStamp(at));
    fs.renameSync(file, this.writable(backupRel));
    return backupRel;
  }

  readPlaybook(): string {
    return this.readText(PLAYBOOK_FILE) ?? "";
  }

  /** Keys of the notes present, sorted. */
  listNotes(): string[] {
    return listMarkdown(path.join(this.dir, "notes"))
      .map((name) => name.slice(0, -".md".length))
      .filter(isValidKey)
      .sort();
  }

  /**
   * Seeds one file before the run (`--preset notes/experience.md=path`). Only the playbook, a
   * note or a review can be seeded; the copy is byte-for-byte (no attribution line is added).
   */
  seedPreset(relPath: string, sourceFile: string): WriteResult {
    const seed = readPreset(relPath, sourceFile);
    const [backup] = this.seed([seed], "preset");
    return { path: seed.path, backup: backup ?? null };
  }

  /**
   * Starts from another run's memory (`--memory-from`): its playbook, notes and reviews, but not
   * its journal, which is that run's day-to-day record. Returns the relative paths copied.
   */
  copyFrom(otherRunDir: string): string[] {
    if (path.resolve(otherRunDir) === this.dir) {
      throw new MemoryInputError("A run cannot copy memory from itself; pass another run.");
    }
    const seeds = readMemoryCopy(otherRunDir);
    this.seed(seeds, "copied");
    return seeds.map((s) => s.path);
  }

  /** Writes files read by readMemoryCopy or readPreset, backing up what they replace. */
  seed(seeds: readonly MemorySeed[], label: "copied" | "preset"): (string | null)[] {
    return seeds.map(({ path: rel, data }) => {
      const backup = this.backupExisting(rel, label);
      writeFileAtomic(this.writable(rel), data);
      return backup;
    });
  }

  /** Counts regular files only: a planted link is skipped (recall reports it), so a run ends. */
  stats(): MemoryStats {
    const journal = listMarkdownFiles(path.join(this.dir, "journal"));
    const reviews = listMarkdownFiles(path.join(this.dir, "reviews"));
    const notes = listMarkdownFiles(path.join(this.dir, "notes"))
      .map((name) => name.slice(0, -".md".length))
      .filter(isValidKey);
    let journalEntries = 0;
    let bytes = fileSize(path.join(this.dir, PLAYBOOK_FILE));
    for (const name of journal) {
      const text = this.readText(`journal/${name}`) ?? "";
      journalEntries += text.split("\n").filter((l) => JOURNAL_ENTRY.test(l)).length;
      bytes += Buffer.byteLength(text);
    }
    for (const key of notes) bytes += fileSize(path.join(this.dir, "notes", `${key}.md`));
    for (const name of reviews) bytes += fileSize(path.join(this.dir, "reviews", name));
    return {
      journalFiles: journal.length,
      journalEntries,
      notes: notes.length,
      reviews: reviews.length,
      bytes,
    };
  }

  private writeAttributed(rel: string, content: string, at: Millis): WriteResult {
    const text = `${attributionLine(at, this.runId)}\n${withFinalNewline(normalize(content))}`;
    const file = this.writable(rel);
    const backup = this.backupExisting(rel, compactStamp(at));
    writeFileAtomic(file, text);
    return { path: rel, backup };
  }

  /**
   * The agent may add to the manual but never rewrite it, so a lesson goes at the end of the
   * "Lessons" section (created once), which keeps any later sections of the manual intact.
   */
  private appendLesson(content: string, at: Millis): WriteResult {
    const lesson = indentEntry(`- [${minuteStamp(at)}] `, nonEmpty(content, "memory_note"));
    const file = this.writable(PLAYBOOK_FILE);
    const lines = (this.readText(PLAYBOOK_FILE) ?? "").replace(/\n+$/, "").split("\n");
    if (lines.length === 1 && lines[0] === "") lines.pop();
    const heading = lines.findLastIndex((l) => LESSONS_HEADING.test(l));
    if (heading === -1) {
      if (lines.length > 0) lines.push("");
      lines.push("## Lessons", "", ...lesson);
    } else {
      let end = lines.length;
      for (let i = heading + 1; i < lines.length; i++) {
        if (TOP_HEADING.test(lines[i]!)) {
          end = i;
          break;
        }
      }
      let pos = end;
      while (pos > heading + 1 && lines[pos - 1]!.trim() === "") pos--;
      const insert = pos === heading + 1 ? ["", ...lesson] : [...lesson];
      if (pos === end && end < lines.length) insert.push("");
      lines.splice(pos, 0, ...insert);
    }
    writeFileAtomic(file, `${lines.join("\n")}\n`);
    return { path: PLAYBOOK_FILE, backup: null };
  }

  /**
   * Replaces the playbook with `text` (its compression), after copying the current one to
   * `backups/playbook.compress-<stamp>.<n>.md`: nothing is rewritten without a backup first.
   */
  rewritePlaybook(text: string, at: Millis): WriteResult {
    const backup = this.backupExisting(PLAYBOOK_FILE, `compress-${compactStamp(at)}`);
    writeFileAtomic(this.writable(PLAYBOOK_FILE), withFinalNewline(normalize(text)));
    return { path: PLAYBOOK_FILE, backup };
  }

  /** Copies the current version of `rel` (if any) to a fresh backup path. */
  private backupExisting(rel: string, label: string): string | null {
    const current = this.readBytes(rel);
    if (current === null) return null;
    const backupRel = this.freeBackupPath(rel, label);
    writeFileAtomic(this.writable(backupRel), current);
    return backupRel;
  }

  /** `backups/<rel without .md>.<label>.<n>.md` with the first n not yet taken. */
  private freeBackupPath(rel: string, label: string): string {
    const stem = rel.replace(/\.md$/, "");
    for (let n = 1; ; n++) {
      const candidate = `backups/${stem}.${label}.${n}.md`;
      // A dangling link counts as taken: writable() refuses it rather than writing through it.
      if (lstatOrNull(path.join(this.dir, ...candidate.split("/"))) === null) return candidate;
    }
  }

  /**
   * The absolute path for writing `rel`, with its parent created. Checked lexically, and no
   * directory on the way nor the file itself may be a link, so neither a crafted name nor a
   * planted link can lead outside the run.
   */
  private writable(rel: string): string {
    const file = path.resolve(this.dir, ...rel.split("/"));
    if (!isInside(this.dir, file)) throw outside(rel);
    mkdirBelow(this.dir, path.dirname(file));
    refuseSymlinkBelow(this.dir, file);
    return file;
  }

  /** `rel`'s bytes (null when absent), refusing a link anywhere below the run directory. */
  private readBytes(rel: string): Buffer | null {
    const file = path.join(this.dir, ...rel.split("/"));
    refuseSymlinkBelow(this.dir, file);
    return readFileNoFollow(file);
  }

  private readText(rel: string): string | null {
    return this.readBytes(rel)?.toString("utf8") ?? null;
  }
}

function outside(rel: string): MemoryPathError {
  return new MemoryPathError(
    `Refusing to write ${JSON.stringify(rel)}: it resolves outside the run directory. Memory ` +
      "files live only in playbook.md, journal/, notes/, reviews/ and backups/ of the run.",
  );
}

function isInside(root: string, file: string): boolean {
  const rel = path.relative(root, file);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel);
}

/**
 * Reads another run's playbook, notes and reviews for `--memory-from`, before anything is
 * written: the source directory, its memory directories and files must not be links.
 */
export function readMemoryCopy(otherRunDir: string): MemorySeed[] {
  const source = path.resolve(otherRunDir);
  refuseSymlink(source);
  if (!isDirectory(source)) {
    throw new MemoryInputError(
      `Cannot copy memory from ${otherRunDir}: it is not a directory. Pass a run directory ` +
        "(or run id) listed by `agenticbt list` to --memory-from.",
    );
  }
  const rels: string[] = [PLAYBOOK_FILE];
  for (const sub of ["notes", "reviews"]) {
    for (const name of listMarkdown(path.join(source, sub)).sort()) {
      if (isValidKey(name.slice(0, -".md".length))) rels.push(`${sub}/${name}`);
    }
  }
  const seeds: MemorySeed[] = [];
  for (const rel of rels) {
    const data = readFileNoFollow(path.join(source, ...rel.split("/")));
    if (data !== null) seeds.push({ path: rel, data });
  }
  return seeds;
}

/** Reads a `--preset target=file` source (not a link) and checks its target. */
export function readPreset(relPath: string, sourceFile: string): MemorySeed {
  const rel = presetTarget(relPath);
  let data: Buffer | null;
  try {
    data = readFileNoFollow(sourceFile);
  } catch (err) {
    if (err instanceof SymlinkError) throw err;
    throw new MemoryInputError(
      `Cannot read preset file ${sourceFile} for ${rel}: ${errorText(err)}. ` +
        "Check the path after '=' in --preset.",
    );
  }
  if (data === null) {
    throw new MemoryInputError(
      `Cannot read preset file ${sourceFile} for ${rel}: it does not exist. ` +
        "Check the path after '=' in --preset.",
    );
  }
  return { path: rel, data };
}

/** Validates a `--preset` target and returns it in canonical "dir/name.md" form. */
/** The memory file a `--preset` target names, or a MemoryPathError saying the allowed forms. */
export function presetTarget(relPath: string): string {
  const rel = relPath.startsWith("./") ? relPath.slice(2) : relPath;
  if (rel === PLAYBOOK_FILE) return rel;
  const m = /^(notes|reviews)\/([^/]*)\.md$/.exec(rel);
  if (m !== null) {
    try {
      validateMemoryKey(m[2]!);
      return rel;
    } catch (err) {
      if (!(err instanceof MemoryKeyError)) throw err;
    }
  }
  throw new MemoryPathError(
    `Cannot seed ${JSON.stringify(relPath)}: a preset must be playbook.md, notes/<key>.md or ` +
      "reviews/<key>.md, where <key> is letters, digits, '_', '.' or '-' " +
      "(e.g. --preset notes/experience.md=./experience.md).",
  );
}

function isValidKey(key: string): boolean {
  try {
    validateMemoryKey(key);
    return true;
  } catch {
    return false;
  }
}

function nonEmpty(content: string, tool: string): string {
  const body = normalize(content).trimEnd();
  if (body.trim() === "") {
    throw new MemoryInputError(`${tool} needs some text to record; the content was empty.`);
  }
  return body;
}

/**
 * The first line gets `prefix`; continuation lines are indented so a heading or a time stamp in
 * the content cannot start a new entry, and the entry stays one block for recall.
 */
function indentEntry(prefix: string, body: string): string[] {
  return body.split("\n").map((line, i) => {
    if (i === 0) return `${prefix}${line}`;
    return line.trim() === "" ? "" : `  ${line}`;
  });
}

function normalize(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

function withFinalNewline(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}

function countLines(text: string): number {
  let n = 0;
  for (const ch of text) if (ch === "\n") n++;
  return n;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
