import path from "node:path";
import { JOURNAL_ENTRY } from "../memory/memory-layout.js";
import { markdownFiles, readTextOrNull } from "../rundir/run-files.js";
import type { JournalStats } from "../rundir/schemas.js";

/**
 * How much the run journaled: one file per simulated day, entries are `[HH:MM] …` lines, words
 * are counted in the entries (headings left out, they are the framework's, not the writer's).
 */
export function journalStats(dir: string): JournalStats {
  const files = markdownFiles(dir, "journal");
  let entries = 0;
  let words = 0;
  for (const f of files) {
    const text = readTextOrNull(path.join(dir, f)) ?? "";
    let inEntry = false;
    for (const line of text.split("\n")) {
      if (JOURNAL_ENTRY.test(line)) {
        entries++;
        inEntry = true;
        words += countWords(line.replace(JOURNAL_ENTRY, ""));
      } else if (line.startsWith("#")) inEntry = false;
      else if (inEntry) words += countWords(line); // an entry's continuation lines
    }
  }
  return {
    days: files.length,
    entries,
    words,
    wordsPerDay: files.length ? Math.round((words / files.length) * 10) / 10 : null,
  };
}

const countWords = (s: string) => s.split(/\s+/).filter(Boolean).length;
