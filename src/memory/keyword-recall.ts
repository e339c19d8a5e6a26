import path from "node:path";
import type { Millis } from "../engine/types.js";
import type { Citation } from "../strategy/types.js";
import { parseAttribution } from "./attribution.js";
import { listMarkdown, readTextOrNull } from "./memory-files.js";
import { JOURNAL_ENTRY, PLAYBOOK_FILE } from "./memory-layout.js";
import { DAY_MS, MINUTE_MS, parseDayKey, parseMinuteStamp, startOfDay } from "./sim-time.js";

export type { Citation };
export type CitationSource = Citation["source"];

export interface RecallOptions {
  /** Most citations returned (default 5). */
  limit?: number;
  /** The simulated now: nothing written after it is returned. */
  asOf?: Millis;
  /** Forget by age (seed 000). Defaults to true when `asOf` is set; needs `asOf` to apply. */
  decay?: boolean;
}

export const DEFAULT_RECALL_LIMIT = 5;
/** Journals of this many calendar days (the as-of day included) stay recallable in full. */
export const JOURNAL_RECALL_DAYS = 5;
/** Weekly reviews cover the last ~month; monthly reviews take over for anything older. */
export const WEEKLY_REVIEW_DAYS = 31;
const MAX_BLOCK_LINES = 20;
const MAX_SNIPPET_CHARS = 600;

const HEADING = /^#{1,6}\s/;
const LESSON_ENTRY = /^- \[(\d{4}-\d{2}-\d{2} \d{2}:\d{2})\]/;
const CJK = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}";
const QUERY_TOKEN = new RegExp(`[${CJK}]+|(?:(?![${CJK}])[\\p{L}\\p{N}_])+`, "gu");
const CJK_CHAR = new RegExp(`[${CJK}]`, "u");
const STOPWORDS = new Set(
  "the and for was were are with what when how did does that this from into has have had not but you its".split(
    " ",
  ),
);

export interface RecallTerm {
  text: string;
  weight: number;
  cjk: boolean;
  /** For word terms: matches at the start of a word, so "buy" also finds "buying". */
  pattern: RegExp | null;
}

interface Doc {
  path: string;
  source: CitationSource;
  text: string;
  /** Whether line 1 is an attribution line (kept out of the searchable text). */
  attributed: boolean;
  /** For journals, midnight of the file's day: entry times are relative to it. */
  day: Millis | null;
}

interface Block {
  startLine: number;
  endLine: number;
  lines: string[];
  /** When the block was written, when known: used to hide what was written after `asOf`. */
  at: Millis | null;
}

/**
 * Keyword search over a run's memory files, returning citations to line ranges. A stand-in for
 * the FTS5 index: same inputs, same citation shape, simpler scoring.
 */
export function recall(dir: string, query: string, opts: RecallOptions = {}): Citation[] {
  const terms = queryTerms(query);
  const limit = Math.max(0, Math.floor(opts.limit ?? DEFAULT_RECALL_LIMIT));
  if (terms.length === 0 || limit === 0) return [];
  const asOf = opts.asOf ?? null;
  const decay = asOf !== null && (opts.decay ?? true);
  const hits: Citation[] = [];
  for (const doc of eligibleDocs(path.resolve(dir), asOf, decay)) {
    for (const block of splitBlocks(doc)) {
      if (asOf !== null && block.at !== null && block.at > asOf) continue;
      const score = scoreBlock(block.lines.join("\n"), terms);
      if (score === 0) continue;
      hits.push({
        path: doc.path,
        startLine: block.startLine,
        endLine: block.endLine,
        snippet: snippet(block.lines),
        score,
        source: doc.source,
      });
    }
  }
  hits.sort(
    (a, b) => b.score - a.score || compareText(a.path, b.path) || a.startLine - b.startLine,
  );
  return hits.slice(0, limit);
}

/**
 * The files the agent could have seen at `asOf`, after forgetting by age when `decay` is on:
 * recent journals in full, weekly reviews for the last month, monthly reviews before that; notes
 * and the playbook always (the playbook's later lessons are dropped block by block).
 */
function eligibleDocs(dir: string, asOf: Millis | null, decay: boolean): Doc[] {
  const docs: Doc[] = [];
  const playbook = readTextOrNull(path.join(dir, PLAYBOOK_FILE));
  if (playbook !== null) {
    docs.push({
      path: PLAYBOOK_FILE,
      source: "playbook",
      text: playbook,
      attributed: false,
      day: null,
    });
  }
  for (const name of listMarkdown(path.join(dir, "journal")).sort()) {
    const day = parseDayKey(name.slice(0, -".md".length));
    if (asOf !== null) {
      if (day === null || day > asOf) continue;
      if (decay && startOfDay(asOf) - day >= JOURNAL_RECALL_DAYS * DAY_MS) continue;
    }
    const text = readTextOrNull(path.join(dir, "journal", name));
    if (text !== null) {
      docs.push({ path: `journal/${name}`, source: "journal", text, attributed: false, day });
    }
  }
  for (const [sub, source] of [
    ["notes", "note"],
    ["reviews", "review"],
  ] as const) {
    for (const name of listMarkdown(path.join(dir, sub)).sort()) {
      const text = readTextOrNull(path.join(dir, sub, name));
      if (text === null) continue;
      const written = parseAttribution(text)?.at ?? null;
      // Undated files are presets or copies from an earlier run: they predate this run.
      if (asOf !== null && written !== null) {
        if (written > asOf) continue;
        if (decay && source === "review" && !reviewInTier(name, asOf - written)) continue;
      }
      docs.push({ path: `${sub}/${name}`, source, text, attributed: written !== null, day: null });
    }
  }
  return docs;
}

function reviewInTier(name: string, age: Millis): boolean {
  if (name.startsWith("week_")) return age <= WEEKLY_REVIEW_DAYS * DAY_MS;
  if (name.startsWith("month_")) return age > WEEKLY_REVIEW_DAYS * DAY_MS;
  return true;
}

/**
 * A heading, a journal entry or a playbook lesson starts a block; long stretches are cut every
 * MAX_BLOCK_LINES so a citation stays a readable excerpt.
 */
function splitBlocks(doc: Doc): Block[] {
  const blocks: Block[] = [];
  const lines = doc.text.replace(/\r\n?/g, "\n").split("\n");
  let time: Millis | null = doc.day;
  let current: Block | null = null;
  for (let i = doc.attributed ? 1 : 0; i < lines.length; i++) {
    const line = lines[i]!;
    const entryTime = lineTime(line, doc.day);
    const starts =
      current === null ||
      entryTime !== null ||
      HEADING.test(line) ||
      current.lines.length >= MAX_BLOCK_LINES;
    if (entryTime !== null) time = entryTime;
    else if (HEADING.test(line) && doc.day === null) time = null;
    if (starts) {
      current = { startLine: i + 1, endLine: i + 1, lines: [], at: time };
      blocks.push(current);
    }
    current!.lines.push(line);
    current!.endLine = i + 1;
  }
  return blocks.filter(trimBlock);
}

/** The time a journal entry or a playbook lesson was written, or null for any other line. */
function lineTime(line: string, day: Millis | null): Millis | null {
  if (day !== null) {
    if (!JOURNAL_ENTRY.test(line)) return null;
    return day + Number(line.slice(1, 3)) * 60 * MINUTE_MS + Number(line.slice(4, 6)) * MINUTE_MS;
  }
  const lesson = LESSON_ENTRY.exec(line);
  return lesson === null ? null : parseMinuteStamp(lesson[1]!);
}

/** Drops trailing blank lines; false for a block with no text at all. */
function trimBlock(block: Block): boolean {
  while (block.lines.length > 0 && block.lines.at(-1)!.trim() === "") {
    block.lines.pop();
    block.endLine--;
  }
  return block.lines.some((l) => l.trim() !== "");
}

/**
 * Word terms, plus every CJK character and adjacent pair (CJK text has no spaces, so bigrams
 * stand in for words). Bigrams and words weigh twice a single character.
 */
export function queryTerms(query: string): RecallTerm[] {
  const terms = new Map<string, RecallTerm>();
  for (const token of fold(query).match(QUERY_TOKEN) ?? []) {
    if (CJK_CHAR.test(token)) {
      const chars = [...token];
      chars.forEach((ch, i) => {
        terms.set(ch, { text: ch, weight: 1, cjk: true, pattern: null });
        const pair = chars[i + 1];
        if (pair !== undefined) {
          terms.set(ch + pair, { text: ch + pair, weight: 2, cjk: true, pattern: null });
        }
      });
    } else if (token.length >= 2 && !STOPWORDS.has(token)) {
      const pattern = new RegExp(`(?<![\\p{L}\\p{N}_])${escapeRegExp(token)}`, "gu");
      terms.set(token, { text: token, weight: 2, cjk: false, pattern });
    }
  }
  return [...terms.values()];
}

/**
 * 0.8 × the weighted share of terms present + 0.2 × how often they occur (saturating at three
 * hits), so covering more of the query always beats repeating one term. Rounded to 4 places.
 */
export function scoreBlock(text: string, terms: readonly RecallTerm[]): number {
  const haystack = fold(text);
  let total = 0;
  let covered = 0;
  let frequency = 0;
  for (const term of terms) {
    total += term.weight;
    const hits = countHits(haystack, term);
    if (hits === 0) continue;
    covered += term.weight;
    frequency += (term.weight * Math.min(hits, 3)) / 3;
  }
  if (covered === 0 || total === 0) return 0;
  const score = (0.8 * covered + 0.2 * frequency) / total;
  return Math.max(1e-4, Math.round(score * 1e4) / 1e4);
}

function countHits(haystack: string, term: RecallTerm): number {
  if (term.pattern !== null) return haystack.match(term.pattern)?.length ?? 0;
  let hits = 0;
  for (let i = haystack.indexOf(term.text); i !== -1; i = haystack.indexOf(term.text, i + 1)) {
    hits++;
  }
  return hits;
}

/** Full-width forms and case must not hide a match. */
function fold(text: string): string {
  return text.normalize("NFKC").toLowerCase();
}

function snippet(lines: readonly string[]): string {
  const text = lines.join("\n").trim();
  return text.length > MAX_SNIPPET_CHARS ? `${text.slice(0, MAX_SNIPPET_CHARS)}…` : text;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Code-unit order, so the tie-break does not depend on the machine's locale. */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
