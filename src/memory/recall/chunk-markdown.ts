import type { Millis } from "../../engine/types.js";
import { JOURNAL_ENTRY } from "../memory-layout.js";
import { MINUTE_MS, parseMinuteStamp } from "../sim-time.js";
import type { FileDating } from "./memory-sources.js";
import { countTokens } from "./tokenize.js";

/** Target chunk size and overlap, in cheap tokens (words + CJK characters). */
export const CHUNK_TOKENS = 400;
export const OVERLAP_TOKENS = 80;

/**
 * The `at` of a journal chunk whose file name is not a date: later than any simulated now, so
 * such text is only ever found without an as-of (the user's view).
 */
export const UNDATABLE: Millis = Number.MAX_SAFE_INTEGER;

const HEADING = /^#{1,6}\s/;
const LESSON_ENTRY = /^- \[(\d{4}-\d{2}-\d{2} \d{2}:\d{2})\]/;

export interface Chunk {
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  text: string;
  /** The section heading when the chunk is a later window of it (indexed, not cited). */
  context: string;
  /** When the content was written (simulated); null = always visible (manual, presets). */
  at: Millis | null;
}

interface Section {
  start: number;
  lines: string[];
  at: Millis | null;
}

/**
 * Cuts a memory file into citable chunks. Sections start at headings, and also at every journal
 * entry and playbook lesson, so that a chunk never mixes text written at different simulated
 * times: the as-of filter can then work per chunk without leaking later entries. Long sections
 * are cut into line windows of about CHUNK_TOKENS with OVERLAP_TOKENS of overlap.
 */
export function chunkMarkdown(text: string, dating: FileDating): Chunk[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const sections: Section[] = [];
  // Journals and decision traces are day files of `[HH:MM]` entries.
  const dayFile = dating.source === "journal" || dating.source === "trace";
  const journalDay = dayFile ? (dating.fileAt ?? UNDATABLE) : null;
  let current: Section | null = null;
  for (let i = dating.attributed ? 1 : 0; i < lines.length; i++) {
    const line = lines[i]!;
    const entryAt = entryTime(line, dating, journalDay);
    if (current === null || entryAt !== undefined || HEADING.test(line)) {
      current = { start: i + 1, lines: [], at: sectionTime(entryAt, dating, journalDay) };
      sections.push(current);
    }
    current.lines.push(line);
  }
  return sections.flatMap(windows);
}

/**
 * The time an entry line starts: a journal `[HH:MM]` line or a playbook lesson; undefined for
 * any other line. (null would mean "an entry of unknown time", which cannot happen.)
 */
function entryTime(
  line: string,
  dating: FileDating,
  journalDay: Millis | null,
): Millis | undefined {
  if (journalDay !== null) {
    if (!JOURNAL_ENTRY.test(line)) return undefined;
    if (journalDay === UNDATABLE) return UNDATABLE;
    return (
      journalDay + Number(line.slice(1, 3)) * 60 * MINUTE_MS + Number(line.slice(4, 6)) * MINUTE_MS
    );
  }
  if (dating.source !== "playbook") return undefined;
  const lesson = LESSON_ENTRY.exec(line);
  return lesson === null ? undefined : (parseMinuteStamp(lesson[1]!) ?? undefined);
}

/** Headings of a journal carry the file's day; of notes and reviews, the attribution time. */
function sectionTime(
  entryAt: Millis | undefined,
  dating: FileDating,
  journalDay: Millis | null,
): Millis | null {
  if (entryAt !== undefined) return entryAt;
  if (journalDay !== null) return journalDay;
  return dating.source === "playbook" ? null : dating.fileAt;
}

function windows(section: Section): Chunk[] {
  let first = 0;
  let last = section.lines.length - 1;
  while (first <= last && section.lines[first]!.trim() === "") first++;
  while (last >= first && section.lines[last]!.trim() === "") last--;
  if (first > last) return [];
  const lines = section.lines.slice(first, last + 1);
  const start = section.start + first;
  const heading = HEADING.test(lines[0]!) ? lines[0]! : "";
  const sizes = lines.map(countTokens);
  const chunks: Chunk[] = [];
  let from = 0;
  for (;;) {
    let to = from;
    let size = sizes[from]!;
    while (to + 1 < lines.length && size + sizes[to + 1]! <= CHUNK_TOKENS) {
      to++;
      size += sizes[to]!;
    }
    const chunk = window(lines, from, to, start, from === 0 ? "" : heading, section.at);
    // Blank lines cost no tokens, so only a run of them before an oversized line is empty.
    if (chunk.text.trim() !== "") chunks.push(chunk);
    if (to === lines.length - 1) return chunks;
    // Step back over at most OVERLAP_TOKENS of the window's tail, but always move forward.
    let next = to + 1;
    let overlap = 0;
    while (next - 1 > from && overlap + sizes[next - 1]! <= OVERLAP_TOKENS) {
      next--;
      overlap += sizes[next]!;
    }
    from = next;
  }
}

function window(
  lines: readonly string[],
  from: number,
  to: number,
  start: number,
  context: string,
  at: Millis | null,
): Chunk {
  let a = from;
  let b = to;
  while (a < b && lines[a]!.trim() === "") a++;
  while (b > a && lines[b]!.trim() === "") b--;
  return {
    startLine: start + a,
    endLine: start + b,
    text: lines.slice(a, b + 1).join("\n"),
    context,
    at,
  };
}
