import { createHash } from "node:crypto";
import path from "node:path";
import type { DistillReviews } from "../config/memory-command-settings.js";
import type { Millis } from "../engine/types.js";
import { UsageError } from "../errors/run-errors.js";
import { stripAttribution } from "../memory/attribution.js";
import { LESSONS_HEADING, PLAYBOOK_FILE } from "../memory/memory-layout.js";
import type { EntryType, Provenance } from "../memory/persistent/entry-file.js";
import { memoryRootFor, validateNamespace } from "../memory/persistent/namespace.js";
import { PersistentStore } from "../memory/persistent/persistent-store.js";
import { minuteStamp } from "../memory/sim-time.js";
import type { DistilledEntry, DistillOutput } from "../rundir/memory-command-schemas.js";
import { markdownFiles, readTextOrNull } from "../rundir/run-files.js";
import { readResult } from "../rundir/run-record.js";
import { labelTime } from "./decisions-at.js";

export interface DistillOptions {
  /** The store written: `<memory root>/<namespace>/`. */
  namespace: string;
  /** The runs root; the memory root is beside it (as for `run --memory persistent`). */
  runsRoot: string;
  minRuns: number;
  reviews: DistillReviews;
}

export interface SourceRun {
  id: string;
  dir: string;
  start: Millis;
  end: Millis;
  lessons: string[];
  reviews: { key: string; text: string }[];
}

/** Characters of a lesson kept in its entry's title (the slug stays below its 60-character cut). */
const TITLE_CHARS = 48;

/**
 * `agenticbt memory distill <runs…> --into <namespace>`: the playbook lessons and the reviews of
 * finished runs become entries of a persistent store, deterministically (no model). A lesson is
 * one bullet of the playbook's Lessons section, its time stamp removed; lessons of the same text
 * (case and spacing folded) in several runs are one entry, kept when at least `minRuns` runs have
 * it. Every entry carries the period its knowledge comes from (a shared lesson: from its runs'
 * first bar to their last), so the persistent system's look-ahead guard hides it from any run
 * that starts before that period ends. Re-distilling the same runs rewrites the same entries.
 */
export function distillRuns(dirs: readonly string[], o: DistillOptions): DistillOutput {
  const runs = readSources(dirs, o);
  return distillByRules(runs, openStore(o), o);
}

/** The source runs, checked (finished, each named once), ordered by their end, then id. */
export function readSources(dirs: readonly string[], o: DistillOptions): SourceRun[] {
  validateNamespace(o.namespace);
  const runs = dirs.map(readSource).sort((a, b) => a.end - b.end || cmp(a.id, b.id));
  const ids = new Set<string>();
  for (const r of runs) {
    if (ids.has(r.id)) throw new UsageError(`Run ${r.id} is named twice: name each run once.`);
    ids.add(r.id);
  }
  return runs;
}

/** The store `--into` names, created when absent (no level of it may be a link). */
export function openStore(o: DistillOptions): PersistentStore {
  const root = memoryRootFor(o.runsRoot);
  return PersistentStore.open(root, path.join(root, o.namespace));
}

/** The reviews `--reviews` selects from a run, in key order. */
export function selectedReviews(r: SourceRun, which: DistillReviews): SourceRun["reviews"] {
  if (which === "none") return [];
  return which === "month" ? r.reviews.filter((x) => x.key.startsWith("month_")) : r.reviews;
}

/** The deterministic distillation (no model) of `runs` into `store`. */
export function distillByRules(
  runs: readonly SourceRun[],
  store: PersistentStore,
  o: DistillOptions,
): DistillOutput {
  const entries: DistilledEntry[] = [];
  // Lessons by folded text, in the order first learned (runs sorted by their end).
  const lessons = new Map<string, { text: string; runs: SourceRun[] }>();
  for (const r of runs) {
    for (const text of r.lessons) {
      const key = fold(text);
      const group = lessons.get(key) ?? { text, runs: [] };
      if (!group.runs.includes(r)) group.runs.push(r);
      lessons.set(key, group);
    }
  }
  let below = 0;
  for (const [key, { text, runs: from }] of lessons) {
    if (from.length < o.minRuns) {
      below++;
      continue;
    }
    const title = `${cut(text, TITLE_CHARS)} [${hash(key)}]`;
    const body = `${text}\n\nLearned in ${from.length} of ${runs.length} distilled runs: ${sourcesText(from)}.`;
    entries.push(
      writeEntry(store, "lesson", title, body, `lesson of ${from.length} run(s)`, from, hullText),
    );
  }
  for (const r of runs) {
    for (const review of selectedReviews(r, o.reviews)) {
      const title = `Review ${review.key} ${r.id}`;
      entries.push(
        writeEntry(store, "market", title, review.text, `review ${review.key}`, [r], hullText),
      );
    }
  }
  return outputOf(runs, store, entries, below, o);
}

/** The command's answer: the runs read and the entries written. */
export function outputOf(
  runs: readonly SourceRun[],
  store: PersistentStore,
  entries: DistilledEntry[],
  below: number,
  o: DistillOptions,
): DistillOutput {
  return {
    namespace: o.namespace,
    store: store.dir,
    runs: runs.map((r) => ({
      id: r.id,
      period: periodText(r.start, r.end),
      lessons: r.lessons.length,
      reviews: r.reviews.length,
    })),
    entries,
    lessonsBelowMinRuns: below,
  };
}

/** Each source run with its period: `run-a (2020-01-02 00:00 .. 2020-03-31 00:00), …`. */
export const sourcesText = (from: readonly SourceRun[]) =>
  from.map((r) => `${r.id} (${periodText(r.start, r.end)})`).join(", ");

/** A simulated window, or a stretch of several runs' windows. */
export interface Period {
  start: Millis;
  end: Millis;
}

/**
 * The union of periods: sorted by start, those that overlap or share an instant merged into one.
 * Two runs with a gap between them stay two periods (the bar interval is not known here, so the
 * night between one run's last bar and the next run's first is a gap).
 */
export function periodUnion(periods: readonly Period[]): Period[] {
  const sorted = [...periods].sort((a, b) => a.start - b.start || a.end - b.end);
  const out: Period[] = [];
  for (const p of sorted) {
    const last = out.at(-1);
    if (last !== undefined && p.start <= last.end) last.end = Math.max(last.end, p.end);
    else out.push({ start: p.start, end: p.end });
  }
  return out;
}

/** A union of periods as text, its stretches joined by " + ". */
export const unionText = (from: readonly Period[]) =>
  periodUnion(from)
    .map((p) => periodText(p.start, p.end))
    .join(" + ");

/** The span from the first run's first bar to the last run's last (the rules' entries' period). */
const hullText = (from: readonly Period[]) =>
  periodText(Math.min(...from.map((r) => r.start)), Math.max(...from.map((r) => r.end)));

/**
 * Saves one entry through the store (lock, atomic write, backup of a replaced one). Its
 * provenance spans the runs it is `dated` by, by default its sources (the look-ahead guard reads
 * the end: the latest one's last bar); `period` words that period in the command's answer.
 */
export function writeEntry(
  store: PersistentStore,
  type: EntryType,
  title: string,
  content: string,
  description: string,
  from: readonly SourceRun[],
  period: (from: readonly Period[]) => string,
  dated: readonly SourceRun[] = from,
): DistilledEntry {
  const start = Math.min(...dated.map((r) => r.start));
  const end = Math.max(...dated.map((r) => r.end));
  const provenance: Provenance = {
    runId: from.map((r) => r.id).join("+"),
    periodStart: start,
    periodEnd: end,
    writtenAt: end,
  };
  const saved = store.save({ title, content, type, description }, provenance);
  return {
    file: saved.file,
    title,
    kind: type === "lesson" ? "lesson" : "review",
    runs: from.map((r) => r.id),
    period: period(dated),
  };
}

/** A finished run's period and memory: its playbook's lessons and its reviews. */
function readSource(dir: string): SourceRun {
  const result = readResult(dir);
  const id = path.basename(dir);
  if (result.status === "running") {
    throw new UsageError(`Run ${id} is still running: distil it once it has ended.`);
  }
  const { start, end } = result.period;
  if (start === null || end === null) {
    throw new UsageError(
      `Run ${id} simulated no bar (result.json has no period): it has no memory to distil.`,
    );
  }
  const reviews: SourceRun["reviews"] = [];
  for (const rel of markdownFiles(dir, "reviews")) {
    const text = readTextOrNull(path.join(dir, ...rel.split("/")));
    if (text === null) continue;
    const body = stripAttribution(text).trim();
    if (body !== "") reviews.push({ key: path.basename(rel, ".md"), text: body });
  }
  reviews.sort((a, b) => cmp(a.key, b.key));
  return {
    id,
    dir,
    start: labelTime(start),
    end: labelTime(end),
    lessons: playbookLessons(readTextOrNull(path.join(dir, PLAYBOOK_FILE)) ?? ""),
    reviews,
  };
}

/**
 * The bullets of the playbook's Lessons section (a continuation line indented under its bullet
 * belongs to it), each without its `[YYYY-MM-DD HH:MM]` stamp, distinct, in order.
 */
export function playbookLessons(playbook: string): string[] {
  const lines = playbook.replace(/\r\n?/g, "\n").split("\n");
  const heading = lines.findLastIndex((l) => LESSONS_HEADING.test(l));
  if (heading === -1) return [];
  const out: string[] = [];
  let current: string[] | null = null;
  const flush = () => {
    const text = (current ?? []).join("\n").trim();
    if (text !== "" && !out.includes(text)) out.push(text);
    current = null;
  };
  for (const line of lines.slice(heading + 1)) {
    if (/^#{1,2}\s/.test(line)) break;
    const bullet = /^[-*]\s+(?:\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}\]\s*)?(.*)$/.exec(line);
    if (bullet !== null) {
      flush();
      current = [bullet[1]!];
    } else if (current !== null && /^\s+\S/.test(line)) {
      current.push(line.trim());
    } else if (line.trim() === "") {
      flush();
    }
  }
  flush();
  return out;
}

/** Case and spacing folded: the same lesson written twice is one. */
const fold = (text: string) => text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
const hash = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 6);
export const periodText = (start: Millis, end: Millis) =>
  `${minuteStamp(start)} .. ${minuteStamp(end)}`;
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function cut(text: string, n: number): string {
  const one = text.replace(/\s+/g, " ").trim();
  const chars = [...one];
  return chars.length <= n ? one : `${chars.slice(0, n).join("").trimEnd()}…`;
}
