import fs from "node:fs";
import path from "node:path";
import { monthKey } from "../../engine/calendar.js";
import type { Millis } from "../../engine/types.js";
import type { Citation } from "../../strategy/types.js";
import { isErrnoCode } from "../../util/errno.js";
import { lstatOrNull } from "../../util/no-follow.js";
import { parseAttribution } from "../attribution.js";
import { PLAYBOOK_FILE, REPORTS_DIR, TRACES_DIR } from "../memory-layout.js";
import { DAY_MS, parseCompactStamp, parseDayKey } from "../sim-time.js";

export type CitationSource = Citation["source"];

/**
 * Which decay tier (docs/memory-recall.md) a file falls in: recent journals, weekly reviews for the
 * last month, monthly reviews before that; everything else (playbook, notes, other reviews) always.
 */
export type DecayTier = "journal" | "week" | "month" | "always";

/** A memory file found in the run directory. */
export interface MemoryFile {
  /** Relative to the run directory, with "/" separators. */
  path: string;
  abs: string;
  source: CitationSource;
}

/** How a file's content is dated, read from its name and its attribution line. */
export interface FileDating {
  source: CitationSource;
  tier: DecayTier;
  /**
   * Journals: midnight of the file's day (null when the name is not a real date). Notes and
   * reviews: the attribution time (null for presets and copies, which predate the run).
   */
  fileAt: Millis | null;
  /** Line 1 is an attribution line: not content, so it is neither indexed nor cited. */
  attributed: boolean;
  /**
   * Reviews: the first and last month (`YYYY-MM`) of the period the file name names (a week may
   * span two months); null for anything else or an unreadable name.
   */
  months: { first: string; last: string } | null;
}

const SUBDIRS = [
  ["journal", "journal"],
  ["notes", "note"],
  ["reviews", "review"],
  [REPORTS_DIR, "report"],
  [TRACES_DIR, "trace"],
] as const;

/**
 * The files recall searches (backups are not memory): playbook, journal, notes, reviews, and
 * other runs' reports and the run's decision traces when it wrote them (a report is dated, like a
 * note, by its attribution; a trace entry, like a journal entry, by its day and time). A memory
 * directory that is a symbolic link is listed as itself (not its content), so the sync reports it.
 */
export function listMemoryFiles(runDir: string): MemoryFile[] {
  const files: MemoryFile[] = [];
  const playbook = path.join(runDir, PLAYBOOK_FILE);
  files.push({ path: PLAYBOOK_FILE, abs: playbook, source: "playbook" });
  for (const [sub, source] of SUBDIRS) {
    if (lstatOrNull(path.join(runDir, sub))?.isSymbolicLink()) {
      files.push({ path: sub, abs: path.join(runDir, sub), source });
      continue;
    }
    for (const name of markdownNames(path.join(runDir, sub))) {
      files.push({ path: `${sub}/${name}`, abs: path.join(runDir, sub, name), source });
    }
  }
  return files;
}

/** The memory file at a run-relative path ("notes/x.md"), or null when recall does not search it. */
export function memoryFileAt(runDir: string, rel: string): MemoryFile | null {
  const abs = path.join(runDir, ...rel.split("/"));
  if (rel === PLAYBOOK_FILE) return { path: rel, abs, source: "playbook" };
  const slash = rel.indexOf("/");
  const entry = SUBDIRS.find(([sub]) => sub === rel.slice(0, slash));
  const name = rel.slice(slash + 1);
  if (entry === undefined || !name.endsWith(".md") || name.includes("/")) return null;
  return { path: rel, abs, source: entry[1] };
}

/**
 * Earlier versions of a note or review kept in backups/ when a run overwrote it, oldest first:
 * `backups/<dir>/<key>.<YYYYMMDDTHHMM>.<n>.md`, the stamp being the simulated time of the write
 * that replaced it. Backups made before the run (presets, --memory-from) are not versions the
 * run's recalls could have seen, and are left out.
 */
export function listVersionBackups(
  runDir: string,
  file: MemoryFile,
): { abs: string; replacedAt: Millis }[] {
  const slash = file.path.indexOf("/");
  const dir = path.join(runDir, "backups", file.path.slice(0, slash));
  const stem = file.path.slice(slash + 1, -".md".length);
  const out: { abs: string; replacedAt: Millis; n: number }[] = [];
  // Linked backup directories lead outside the run: their content is no history of this one.
  for (const d of [path.join(runDir, "backups"), dir]) {
    if (lstatOrNull(d)?.isSymbolicLink()) return [];
  }
  for (const name of markdownNames(dir)) {
    if (!name.startsWith(`${stem}.`)) continue;
    const m = /^(\d{8}T\d{4})\.(\d+)\.md$/.exec(name.slice(stem.length + 1));
    const replacedAt = m === null ? null : parseCompactStamp(m[1]!);
    if (m === null || replacedAt === null) continue;
    out.push({ abs: path.join(dir, name), replacedAt, n: Number(m[2]) });
  }
  return out.sort((a, b) => a.replacedAt - b.replacedAt || a.n - b.n);
}

/**
 * Like listMarkdown, without its stat per file: the sync lstats each file anyway, and refuses
 * (reports) a symlink there.
 */
function markdownNames(dir: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    if (isErrnoCode(err, "ENOENT") || isErrnoCode(err, "ENOTDIR")) return [];
    throw err;
  }
  return entries
    .filter((e) => e.name.endsWith(".md") && !e.name.startsWith(".") && !e.isDirectory())
    .map((e) => e.name)
    .sort();
}

export function dateFile(file: Pick<MemoryFile, "path" | "source">, text: string): FileDating {
  const name = file.path.slice(file.path.lastIndexOf("/") + 1);
  if (file.source === "journal") {
    const day = parseDayKey(name.slice(0, -".md".length));
    return { source: "journal", tier: "journal", fileAt: day, attributed: false, months: null };
  }
  if (file.source === "trace") {
    // Dated entry by entry like a journal, but never decayed: what happened is always relevant.
    const day = parseDayKey(name.slice(0, -".md".length));
    return { source: "trace", tier: "always", fileAt: day, attributed: false, months: null };
  }
  if (file.source === "playbook") {
    return { source: "playbook", tier: "always", fileAt: null, attributed: false, months: null };
  }
  const at = parseAttribution(text)?.at ?? null;
  let tier: DecayTier = "always";
  let months: FileDating["months"] = null;
  const key = name.slice(0, -".md".length);
  if (file.source === "review" && name.startsWith("week_")) {
    tier = "week";
    months = weekMonths(key.slice("week_".length));
  }
  if (file.source === "review" && name.startsWith("month_")) {
    tier = "month";
    const month = key.slice("month_".length);
    months = /^\d{4}-(0[1-9]|1[0-2])$/.test(month) ? { first: month, last: month } : null;
  }
  return { source: file.source, tier, fileAt: at, attributed: at !== null, months };
}

/** The months of the Monday and the Sunday of ISO week `YYYY-Www`, or null. */
function weekMonths(week: string): { first: string; last: string } | null {
  const m = /^(\d{4})-W(\d{2})$/.exec(week);
  if (m === null || Number(m[2]) < 1 || Number(m[2]) > 53) return null;
  // 4 January is always in week 1; its week's Monday starts week 1.
  const jan4 = Date.UTC(Number(m[1]), 0, 4);
  const monday = jan4 - (((new Date(jan4).getUTCDay() + 6) % 7) - (Number(m[2]) - 1) * 7) * DAY_MS;
  return { first: monthKey(monday), last: monthKey(monday + 6 * DAY_MS) };
}
