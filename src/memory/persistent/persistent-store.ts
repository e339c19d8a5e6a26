import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "../../util/atomic-write.js";
import {
  lstatOrNull,
  mkdirBelow,
  readFileNoFollow,
  refuseSymlinkBelow,
} from "../../util/no-follow.js";
import { listMarkdown } from "../memory-files.js";
import {
  DEFAULT_ENTRY_TYPE,
  type EntryFields,
  type EntryType,
  formatEntry,
  oneLine,
  type Provenance,
  parseEntry,
} from "./entry-file.js";
import { RememberError } from "./persistent-errors.js";
import { METADATA_WEIGHT, queryTokenSet, tokenSet } from "./relevance.js";
import { slugify } from "./slug.js";
import { withStoreLock } from "./store-lock.js";

export const INDEX_FILE = "MEMORY.md";
/** MEMORY.md's line cap, when written and when frozen into the prompt (Vibe-Trading's). */
export const MAX_INDEX_LINES = 200;
/** An entry's body is cut at this many characters when read (Vibe-Trading's MAX_ENTRY_CHARS). */
export const MAX_ENTRY_CHARS = 8000;

export interface StoreEntry {
  /** File name inside the store, e.g. `lesson_止损纪律.md`. */
  file: string;
  fields: EntryFields;
  metaTokens: ReadonlySet<string>;
  bodyTokens: ReadonlySet<string>;
}

export interface Recalled {
  entry: StoreEntry;
  score: number;
}

export interface SaveRequest {
  title: string;
  content: string;
  type?: EntryType;
  description?: string;
}

/**
 * Vibe-Trading's cross-run memory (docs/memory-persistent.md): one directory of markdown entries with
 * frontmatter and a `MEMORY.md` index. Entries are read once when the store is opened; this
 * process's own saves and forgets update both the files (at once, atomically) and that in-memory
 * list, so a run sees the store as it was at its start plus its own writes, and nothing another
 * process writes meanwhile (a replay, which reads a copy, must see exactly what the recorded run
 * saw).
 *
 * The index text is frozen at open: `frozenIndex` never changes, so the prompt prefix built from
 * it stays byte-identical (and cacheable) for the whole run; the next run reads the new index.
 *
 * Nothing below `dir` is read or written through a link.
 */
export class PersistentStore {
  readonly dir: string;
  /** The first MAX_INDEX_LINES lines of MEMORY.md as it was at open ("" when absent). */
  readonly frozenIndex: string;
  private readonly list = new Map<string, StoreEntry>();
  /** token → entry file → its weight there (2 in title/description, +1 in the body): the
   * overlap score of a query is the sum over its tokens, so only matching entries are touched. */
  private readonly postings = new Map<string, Map<string, number>>();

  private constructor(dir: string) {
    this.dir = dir;
    this.frozenIndex = capLines(this.readText(INDEX_FILE) ?? "").trimEnd();
    for (const file of listMarkdown(dir).sort()) {
      if (file === INDEX_FILE) continue;
      const text = this.readText(file);
      if (text !== null) this.put(toEntry(file, parseEntry(text, file)));
    }
  }

  /**
   * Opens (creating it when absent) the store `dir` below the memory root `root`: neither the root
   * nor any level below it may be a link.
   */
  static open(root: string, dir: string): PersistentStore {
    const parent = path.dirname(path.resolve(root));
    fs.mkdirSync(parent, { recursive: true });
    mkdirBelow(parent, path.resolve(dir));
    return new PersistentStore(path.resolve(dir));
  }

  /**
   * Reads a store (a run's recorded snapshot) to rebuild a past state in memory: nothing is
   * created or written; `restoreEntry` and `dropEntry` change only the in-memory list.
   */
  static readOnly(dir: string): PersistentStore {
    return new PersistentStore(path.resolve(dir));
  }

  /** Puts an entry's file text into the in-memory list only (a replayed save). */
  restoreEntry(file: string, text: string): void {
    this.put(toEntry(file, parseEntry(text, file)));
  }

  /** Removes an entry from the in-memory list only (a replayed forget). */
  dropEntry(file: string): void {
    this.drop(file);
  }

  /** Every entry, in file-name order. */
  entries(): StoreEntry[] {
    return [...this.list.values()];
  }

  /**
   * Writes `{type}_{slug}.md` (replacing an entry of the same type and slug, whose previous
   * version goes to `backups/`) and updates its line in MEMORY.md. `named` is `{type}_{slug}.md`
   * even when a hidden entry sent the save to a variant (`file`).
   */
  save(
    req: SaveRequest,
    provenance: Provenance | null,
    hidden: (file: string) => boolean = () => false,
  ): { file: string; named: string; replaced: boolean; text: string } {
    const title = oneLine(req.title);
    if (title === "") throw new RememberError("remember save needs a title.");
    if (req.content.trim() === "") throw new RememberError("remember save needs some content.");
    const type = req.type ?? DEFAULT_ENTRY_TYPE;
    // A file the caller may not see (the look-ahead guard's) is neither replaced nor revealed:
    // the save goes to the first variant of the name not hidden (`~n`: no slug has a "~", so a
    // variant never meets another title's file), as if that file did not exist.
    const slug = slugify(title);
    const named = `${type}_${slug}.md`;
    let file = named;
    for (let n = 2; hidden(file); n++) file = `${type}_${slug}~${n}.md`;
    const fields: EntryFields = {
      name: title,
      description: oneLine(req.description ?? "") || title,
      type,
      provenance,
      body: req.content,
    };
    const text = formatEntry(fields);
    const replaced = withStoreLock(this.dir, () => {
      const backedUp = this.backup(file);
      writeFileAtomic(this.writable(file), text);
      this.updateIndexLine(file, fields);
      return backedUp;
    });
    this.put(toEntry(file, parseEntry(text, file)));
    return { file, named, replaced, text };
  }

  /**
   * Removes every entry titled exactly `title` that `visible` accepts (backed up first) and
   * rebuilds the index. A hidden entry of that title is untouched, and the error for "no such
   * title" is the same as when it does not exist, so its existence does not leak.
   */
  forget(title: string, visible: (e: StoreEntry) => boolean = () => true): string[] {
    const wanted = oneLine(title);
    const files = this.entries()
      .filter((e) => e.fields.name === wanted && visible(e))
      .map((e) => e.file);
    if (files.length === 0) {
      throw new RememberError(
        `No memory is titled ${JSON.stringify(wanted)}. Titles are matched exactly; use ` +
          'remember with action "recall" to find the title.',
      );
    }
    withStoreLock(this.dir, () => {
      for (const file of files) {
        this.backup(file);
        fs.rmSync(this.writable(file));
        this.drop(file);
      }
      this.rebuildIndex();
    });
    return files;
  }

  /**
   * Entries sharing tokens with `query`, best first: score (Vibe-Trading's overlap: each shared
   * token counts 2.0 in the title or description and 1.0 in the body: `|q ∩ meta| × 2 +
   * |q ∩ body|`), then the newest write, then the file name, so equal scores always come out in
   * the same order. Only entries
   * `visible` accepts are returned.
   */
  find(query: string, limit: number, visible: (e: StoreEntry) => boolean = () => true): Recalled[] {
    const q = queryTokenSet(query);
    if (q.size === 0 || limit <= 0) return [];
    const scores = new Map<string, number>();
    for (const token of q) {
      const posting = this.postings.get(token);
      if (posting === undefined) continue;
      for (const [file, weight] of posting) scores.set(file, (scores.get(file) ?? 0) + weight);
    }
    const hits: Recalled[] = [];
    for (const [file, score] of scores) {
      const entry = this.list.get(file);
      if (entry !== undefined && visible(entry)) hits.push({ entry, score });
    }
    hits.sort(
      (a, b) =>
        b.score - a.score ||
        writtenAt(b.entry) - writtenAt(a.entry) ||
        (a.entry.file < b.entry.file ? -1 : a.entry.file > b.entry.file ? 1 : 0),
    );
    return hits.slice(0, limit);
  }

  private put(entry: StoreEntry): void {
    this.drop(entry.file);
    this.list.set(entry.file, entry);
    const weights = new Map<string, number>();
    for (const t of entry.metaTokens) weights.set(t, METADATA_WEIGHT);
    for (const t of entry.bodyTokens) weights.set(t, (weights.get(t) ?? 0) + 1);
    for (const [token, weight] of weights) {
      let posting = this.postings.get(token);
      if (posting === undefined) {
        posting = new Map();
        this.postings.set(token, posting);
      }
      posting.set(entry.file, weight);
    }
  }

  private drop(file: string): void {
    const old = this.list.get(file);
    if (old === undefined) return;
    this.list.delete(file);
    for (const t of [...old.metaTokens, ...old.bodyTokens]) {
      const posting = this.postings.get(t);
      posting?.delete(file);
      if (posting?.size === 0) this.postings.delete(t);
    }
  }

  /** MEMORY.md as it is on disk now (not the frozen copy). */
  currentIndex(): string {
    return this.readText(INDEX_FILE) ?? "";
  }

  /**
   * Long-term compression (the memory policy's `long_term_compress_char_threshold`): when MEMORY.md
   * is over `threshold` characters, it is first copied to `backups/MEMORY.<label>.<n>.md`, then
   * rewritten without descriptions (`- [title](file)`), and if that is still too long, to the
   * newest lines that fit (entries dropped from the index are still on disk and still recalled).
   * Deterministic, no model call. Returns the backup's path, or null when the index was within the
   * threshold.
   */
  compressIndex(threshold: number, label: string): string | null {
    return withStoreLock(this.dir, () => this.compressLocked(threshold, label));
  }

  private compressLocked(threshold: number, label: string): string | null {
    const text = this.currentIndex();
    if (threshold <= 0 || text.length <= threshold) return null;
    const backup = this.backupAs(INDEX_FILE, `MEMORY.${label}`);
    const short = indexLines(text).map((line) => {
      const file = linkedFile(line);
      const entry = file === null ? undefined : this.list.get(file);
      return entry === undefined
        ? line
        : indexLine(entry.file, { ...entry.fields, description: "" });
    });
    const kept: string[] = [];
    let size = 0;
    for (let i = short.length - 1; i >= 0; i--) {
      const line = short[i] as string;
      if (size + line.length + 1 > threshold) break;
      kept.unshift(line);
      size += line.length + 1;
    }
    this.writeIndex(kept);
    return backup;
  }

  private updateIndexLine(file: string, fields: EntryFields): void {
    const lines = indexLines(this.currentIndex());
    const line = indexLine(file, fields);
    const at = lines.findIndex((l) => linkedFile(l) === file);
    if (at === -1) lines.push(line);
    else lines[at] = line;
    this.writeIndex(lines);
  }

  /** MEMORY.md from this run's entries and those another run saved since it opened (on disk). */
  private rebuildIndex(): void {
    const all: { file: string; fields: EntryFields }[] = this.entries();
    for (const file of listMarkdown(this.dir).sort()) {
      if (file === INDEX_FILE || this.list.has(file)) continue;
      const text = this.readText(file);
      if (text !== null) all.push({ file, fields: parseEntry(text, file) });
    }
    const ordered = all.sort((a, b) => writtenAt(a) - writtenAt(b));
    this.writeIndex(ordered.map((e) => indexLine(e.file, e.fields)));
  }

  private writeIndex(lines: string[]): void {
    const kept = lines.slice(0, MAX_INDEX_LINES);
    writeFileAtomic(this.writable(INDEX_FILE), kept.length ? `${kept.join("\n")}\n` : "");
  }

  /** Copies the current version of `file` to `backups/` (first free number); false if absent. */
  private backup(file: string): boolean {
    return this.backupAs(file, file.replace(/\.md$/, "")) !== null;
  }

  /** Copies `file` to `backups/<stem>.<n>.md` with the first free n; null when it is absent. */
  private backupAs(file: string, stem: string): string | null {
    const current = readFileNoFollow(this.writable(file));
    if (current === null) return null;
    for (let n = 1; ; n++) {
      const rel = `backups/${stem}.${n}.md`;
      const target = this.writable(rel);
      // A dangling link counts as taken: writeFileAtomic refuses it rather than writing through.
      if (lstatOrNull(target) === null) {
        writeFileAtomic(target, current);
        return rel;
      }
    }
  }

  private writable(rel: string): string {
    const file = path.join(this.dir, ...rel.split("/"));
    mkdirBelow(this.dir, path.dirname(file));
    refuseSymlinkBelow(this.dir, file);
    return file;
  }

  private readText(rel: string): string | null {
    const file = path.join(this.dir, rel);
    refuseSymlinkBelow(this.dir, file);
    return readFileNoFollow(file)?.toString("utf8") ?? null;
  }
}

function toEntry(file: string, fields: EntryFields): StoreEntry {
  const body =
    fields.body.length > MAX_ENTRY_CHARS ? fields.body.slice(0, MAX_ENTRY_CHARS) : fields.body;
  const kept = { ...fields, body };
  return {
    file,
    fields: kept,
    metaTokens: tokenSet(`${kept.name} ${kept.description}`),
    bodyTokens: tokenSet(body),
  };
}

const writtenAt = (e: { fields: EntryFields }) =>
  e.fields.provenance?.writtenAt ?? Number.NEGATIVE_INFINITY;

/** `- [name](file) — description`: the link names the file, so a line can be found again. */
export function indexLine(file: string, fields: EntryFields): string {
  const desc =
    fields.description && fields.description !== fields.name ? ` — ${fields.description}` : "";
  return `- [${fields.name.replace(/[[\]]/g, "")}](${file})${desc}`;
}

/** The entry file an index line links to, or null for another line. */
export function linkedFile(line: string): string | null {
  return /^- \[[^\]]*\]\(([^)]+)\)/.exec(line)?.[1] ?? null;
}

function indexLines(text: string): string[] {
  return text.split("\n").filter((l) => l.trim() !== "");
}

function capLines(text: string): string {
  return text.replace(/\r\n?/g, "\n").split("\n").slice(0, MAX_INDEX_LINES).join("\n");
}

/**
 * A digest of the store's content: the names and bytes of its top-level markdown files in name
 * order (backups excluded). Two stores with the same entries and index have the same hash.
 */
export function storeContentHash(dir: string): string {
  const hash = createHash("sha256");
  for (const file of listMarkdown(dir).sort()) {
    const bytes = readFileNoFollow(path.join(dir, file));
    if (bytes === null) continue;
    hash.update(file).update("\0").update(String(bytes.length)).update("\0").update(bytes);
  }
  return hash.digest("hex");
}

/** Copies the store's top-level markdown files into `dest` (created; must be empty or absent). */
export function copyStoreFiles(dir: string, dest: string, destRoot: string): number {
  mkdirBelow(destRoot, dest);
  let n = 0;
  for (const file of listMarkdown(dir).sort()) {
    const bytes = readFileNoFollow(path.join(dir, file));
    if (bytes === null) continue;
    const target = path.join(dest, file);
    refuseSymlinkBelow(destRoot, target);
    writeFileAtomic(target, bytes);
    n++;
  }
  return n;
}
