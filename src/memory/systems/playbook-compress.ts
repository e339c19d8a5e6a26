import { LESSONS_HEADING } from "../memory-layout.js";
import type { MemoryModelMessage } from "../memory-system.js";

// The files memory's long-term compression (docs/memory-policy.md, Playbook compression): the
// playbook's dated lessons, with duplicates merged and, if still too long, the oldest dropped.
// The rule is deterministic; the model mode's answer is checked and the rule replaces a bad one.

/** A lesson's first line: `- [YYYY-MM-DD HH:MM] text` (workspace.ts appends them so). */
const LESSON_START = /^- \[\d{4}-\d{2}-\d{2} \d{2}:\d{2}\] ?/;
const TOP_HEADING = /^#{1,2}\s/;

interface Parsed {
  /** Lines up to and including the Lessons heading. */
  head: string[];
  /** Each lesson's lines (its first line and its indented continuation). */
  lessons: string[][];
  /** The sections after the Lessons section. */
  tail: string[];
}

function parse(text: string): Parsed | null {
  const lines = text.replace(/\n+$/, "").split("\n");
  const heading = lines.findLastIndex((l) => LESSONS_HEADING.test(l));
  if (heading === -1) return null;
  let end = lines.length;
  for (let i = heading + 1; i < lines.length; i++) {
    if (TOP_HEADING.test(lines[i] as string)) {
      end = i;
      break;
    }
  }
  const lessons: string[][] = [];
  for (const line of lines.slice(heading + 1, end)) {
    if (LESSON_START.test(line)) lessons.push([line]);
    else if (lessons.length > 0) (lessons.at(-1) as string[]).push(line);
  }
  for (const l of lessons) while (l.length > 1 && (l.at(-1) as string).trim() === "") l.pop();
  return { head: lines.slice(0, heading + 1), lessons, tail: lines.slice(end) };
}

function render(p: Parsed): string {
  const out = [...p.head];
  if (p.lessons.length > 0) out.push("", ...p.lessons.flat());
  if (p.tail.length > 0) out.push("", ...p.tail);
  return `${out.join("\n")}\n`;
}

/** What makes two lessons the same: their text without the stamp, case and spacing. */
export function lessonKey(lesson: readonly string[]): string {
  return lesson
    .join("\n")
    .replace(LESSON_START, "")
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/[\s.!;]+$/, "")
    .trim();
}

/** The playbook's lessons, each as its text block (for the lessons added since a compression). */
export function playbookLessons(text: string): string[] {
  return (parse(text)?.lessons ?? []).map((l) => l.join("\n"));
}

export interface Compressed {
  text: string;
  /** Lessons removed as duplicates of an earlier one. */
  merged: number;
  /** The oldest lessons dropped to fit the threshold (they stay in the backup). */
  dropped: number;
}

/**
 * The playbook compressed: each lesson kept once (its first occurrence, where it was first
 * learnt), then, while it is longer than `threshold` characters, its oldest lesson dropped. The
 * manual before the lessons and any later section are kept as they are.
 */
export function compressPlaybook(text: string, threshold: number): Compressed {
  const parsed = parse(text);
  if (parsed === null) return { text, merged: 0, dropped: 0 };
  const seen = new Set<string>();
  const unique: string[][] = [];
  for (const lesson of parsed.lessons) {
    const key = lessonKey(lesson);
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push(lesson);
  }
  const merged = parsed.lessons.length - unique.length;
  const p = { ...parsed, lessons: unique };
  let dropped = 0;
  while (p.lessons.length > 0 && render(p).length > threshold) {
    p.lessons = p.lessons.slice(1);
    dropped++;
  }
  return { text: merged + dropped > 0 ? render(p) : text, merged, dropped };
}

/** The transcript purpose of the model's playbook compression. */
export const PLAYBOOK_COMPRESS_PURPOSE = "files.playbook_compress";

/** The model's request: the lessons alone (the manual and later sections are kept as they are). */
export function playbookCompressRequest(
  text: string,
  threshold: number,
): MemoryModelMessage[] | null {
  const parsed = parse(text);
  if (parsed === null || parsed.lessons.length === 0) return null;
  const system = [
    "You maintain a trader's playbook: a list of dated lessons. Rewrite the list:",
    "- merge lessons that say the same thing into one lesson (keep the stamp of the earliest);",
    "- keep every distinct lesson, its meaning and its numbers;",
    "- keep each lesson's stamp exactly as written: every line starts with - [YYYY-MM-DD HH:MM] ;",
    "- oldest first, one lesson per line, nothing else in the answer.",
    `The playbook must stay under ${threshold} characters; the oldest lessons are dropped past it.`,
  ].join("\n");
  return [
    { role: "system", content: system },
    { role: "user", content: parsed.lessons.map((l) => l.join("\n")).join("\n") },
  ];
}

/**
 * The playbook with the model's lessons in place of its own, then (past `threshold`) the oldest
 * dropped; null when the answer fails a check: no lesson, text that is not a lesson, a stamp the
 * playbook does not hold, more lessons than before, or two lessons alike (lessonKey).
 */
export function modelCompressed(
  text: string,
  answer: string,
  threshold: number,
): Compressed | null {
  const parsed = parse(text);
  if (parsed === null) return null;
  const stamps = new Set(parsed.lessons.map(stampOf));
  const lessons: string[][] = [];
  for (const line of answer.replace(/\r/g, "").split("\n")) {
    if (line.trim() === "" || /^\s*```/.test(line)) continue;
    if (LESSON_START.test(line)) lessons.push([line.trimEnd()]);
    else if (lessons.length > 0 && /^\s+\S/.test(line)) (lessons.at(-1) as string[]).push(line);
    else return null;
  }
  if (lessons.length === 0 || lessons.length > parsed.lessons.length) return null;
  const keys = new Set<string>();
  for (const l of lessons) {
    if (!stamps.has(stampOf(l))) return null;
    const key = lessonKey(l);
    if (key === "" || keys.has(key)) return null;
    keys.add(key);
  }
  const rewritten = render({ ...parsed, lessons });
  const fitted = compressPlaybook(rewritten, threshold);
  return {
    text: fitted.text,
    merged: parsed.lessons.length - lessons.length,
    dropped: fitted.dropped,
  };
}

function stampOf(lesson: readonly string[]): string {
  return (lesson[0] ?? "").match(LESSON_START)?.[0].trim() ?? "";
}
