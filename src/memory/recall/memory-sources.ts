import fs from "node:fs";
import path from "node:path";
import type { Millis } from "../../engine/types.js";
import type { Citation } from "../../strategy/types.js";
import { isErrnoCode } from "../../util/errno.js";
import { lstatOrNull } from "../../util/no-follow.js";
import { parseAttribution } from "../attribution.js";
import { PLAYBOOK_FILE } from "../memory-layout.js";
import { parseDayKey } from "../sim-time.js";

export type CitationSource = Citation["source"];

/**
 * Which decay tier (SPEC §6) a file falls in: recent journals, weekly reviews for the last month,
 * monthly reviews before that; everything else (playbook, notes, other reviews) always.
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
}

/**
 * The files recall searches (backups are not memory): playbook, journal, notes, reviews. A memory
 * directory that is a symbolic link is listed as itself (not its content), so the sync reports it.
 */
export function listMemoryFiles(runDir: string): MemoryFile[] {
  const files: MemoryFile[] = [];
  const playbook = path.join(runDir, PLAYBOOK_FILE);
  files.push({ path: PLAYBOOK_FILE, abs: playbook, source: "playbook" });
  for (const [sub, source] of [
    ["journal", "journal"],
    ["notes", "note"],
    ["reviews", "review"],
  ] as const) {
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
    return { source: "journal", tier: "journal", fileAt: day, attributed: false };
  }
  if (file.source === "playbook") {
    return { source: "playbook", tier: "always", fileAt: null, attributed: false };
  }
  const at = parseAttribution(text)?.at ?? null;
  let tier: DecayTier = "always";
  if (file.source === "review" && name.startsWith("week_")) tier = "week";
  if (file.source === "review" && name.startsWith("month_")) tier = "month";
  return { source: file.source, tier, fileAt: at, attributed: at !== null };
}
