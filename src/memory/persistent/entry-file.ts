import type { Millis } from "../../engine/types.js";
import { minuteStamp, parseMinuteStamp } from "../sim-time.js";

/** The kinds of entry; the type is the file name's prefix (`lesson_止损纪律.md`). */
export const ENTRY_TYPES = ["lesson", "market", "strategy", "reference"] as const;
export type EntryType = (typeof ENTRY_TYPES)[number];
export const DEFAULT_ENTRY_TYPE: EntryType = "lesson";

/** Where an entry came from: the run that wrote it and the simulated window that run covered. */
export interface Provenance {
  runId: string;
  periodStart: Millis;
  periodEnd: Millis;
  /** Simulated time of the write. */
  writtenAt: Millis;
}

export interface EntryFields {
  name: string;
  description: string;
  type: EntryType;
  /** null for an entry a person wrote by hand (no frontmatter fields for a run). */
  provenance: Provenance | null;
  body: string;
}

/** One line: a value with a newline would end the frontmatter field early. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The entry as it is stored: frontmatter (`---` lines) then the body. */
export function formatEntry(e: EntryFields): string {
  const lines = [
    "---",
    `name: ${oneLine(e.name)}`,
    `description: ${oneLine(e.description)}`,
    `type: ${e.type}`,
  ];
  if (e.provenance !== null) {
    const p = e.provenance;
    lines.push(
      `run: ${oneLine(p.runId)}`,
      `period: ${minuteStamp(p.periodStart)} .. ${minuteStamp(p.periodEnd)}`,
      `written: ${minuteStamp(p.writtenAt)}`,
    );
  }
  lines.push("---", "");
  return `${lines.join("\n")}\n${e.body.replace(/\r\n?/g, "\n").trimEnd()}\n`;
}

/**
 * Reads an entry file. A hand-written file without frontmatter is still an entry (its name is
 * the file name, its type the file name's prefix when it is a known type); provenance is null
 * unless all of run, period and written are present and well formed.
 */
export function parseEntry(text: string, fileName: string): EntryFields {
  const stem = fileName.replace(/\.md$/, "");
  const prefix = stem.split("_", 1)[0] ?? "";
  const fallbackType = isEntryType(prefix) ? prefix : DEFAULT_ENTRY_TYPE;
  const normalized = text.replace(/\r\n?/g, "\n");
  const fields = new Map<string, string>();
  let body = normalized;
  if (normalized.startsWith("---\n")) {
    const end = normalized.indexOf("\n---", 3);
    if (end !== -1) {
      for (const line of normalized.slice(4, end).split("\n")) {
        const colon = line.indexOf(":");
        if (colon > 0) fields.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
      }
      const afterFence = normalized.indexOf("\n", end + 4);
      body = afterFence === -1 ? "" : normalized.slice(afterFence + 1);
    }
  }
  const name = fields.get("name") || stem;
  const type = fields.get("type");
  return {
    name,
    description: fields.get("description") ?? "",
    type: type !== undefined && isEntryType(type) ? type : fallbackType,
    provenance: provenanceOf(fields),
    body: body.replace(/^\n+/, "").trimEnd(),
  };
}

function provenanceOf(fields: Map<string, string>): Provenance | null {
  const runId = fields.get("run");
  const period = /^(.+?)\s*\.\.\s*(.+)$/.exec(fields.get("period") ?? "");
  const written = parseMinuteStamp(fields.get("written") ?? "");
  if (!runId || period === null || written === null) return null;
  const periodStart = parseMinuteStamp(period[1]!);
  const periodEnd = parseMinuteStamp(period[2]!);
  if (periodStart === null || periodEnd === null) return null;
  return { runId, periodStart, periodEnd, writtenAt: written };
}

export function isEntryType(value: string): value is EntryType {
  return (ENTRY_TYPES as readonly string[]).includes(value);
}
