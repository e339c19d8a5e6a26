import { readTranscript, type TranscriptEntry } from "../agent/llm/transcript.js";
import { UsageError } from "../errors/run-errors.js";
import { runFile } from "../rundir/layout.js";
import type { DecisionView, ModelContext, ShowAtOutput } from "../rundir/schemas.js";
import { readDecisions } from "./decision-lines.js";

const AT_FORMAT = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?$/;

/**
 * Checks a `--at` value (or another date option, named by `flag`) and returns it in the form run
 * time labels use (`YYYY-MM-DD` or `YYYY-MM-DD HH:MM[:SS]`, a space rather than a "T"). Anything
 * else is bad input (exit code 2).
 */
export function parseAt(at: string, flag = "--at"): string {
  const m = AT_FORMAT.exec(at.trim());
  const bad = () =>
    new UsageError(
      `${flag} ${JSON.stringify(at)} is not a date: use YYYY-MM-DD or YYYY-MM-DD HH:MM (e.g. ${flag} 2006-05-18).`,
    );
  if (m === null) throw bad();
  const [, y, mo, d, h, mi, s] = m;
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (date.getUTCMonth() !== Number(mo) - 1 || date.getUTCDate() !== Number(d)) throw bad();
  if (h !== undefined && (Number(h) > 23 || Number(mi) > 59 || Number(s ?? 0) > 59)) throw bad();
  return `${y}-${mo}-${d}${h !== undefined ? ` ${h}:${mi}${s !== undefined ? `:${s}` : ""}` : ""}`;
}

/**
 * The simulated time (ms) of a label from parseAt: the data's wall clock read as UTC, as the run
 * keeps it. A date alone is 00:00 of that day, the time of a daily bar.
 */
export function labelTime(label: string): number {
  const m = AT_FORMAT.exec(label);
  if (m === null) throw new UsageError(`${JSON.stringify(label)} is not a time label.`);
  const [, y, mo, d, h, mi, s] = m;
  return Date.UTC(
    Number(y),
    Number(mo) - 1,
    Number(d),
    Number(h ?? 0),
    Number(mi ?? 0),
    Number(s ?? 0),
  );
}

/**
 * "Why did it do that?": every decisions.jsonl line (decision and moment) whose time is, or starts
 * with, `at`; for LLM lines, the context the model saw, from transcript.jsonl. With no match, the
 * nearest dates that have lines, so the user can pick one.
 */
export function decisionsAt(dir: string, id: string, atArg: string): ShowAtOutput {
  const at = parseAt(atArg);
  const all = readDecisions(dir);
  const matched = all.filter((d) => d.time === at || d.time.startsWith(at));
  const decisions = matched.some((d) => d.requestHashes.length > 0)
    ? withContexts(matched, readTranscript(runFile(dir, "transcript")))
    : matched;
  const times = [...new Set(all.map((d) => d.time))];
  return {
    id,
    dir,
    at,
    found: matched.length > 0,
    decisions,
    nearby: matched.length
      ? { before: [], after: [] }
      : {
          before: times.filter((t) => t < at).slice(-3),
          after: times.filter((t) => t > at).slice(0, 3),
        },
  };
}

function withContexts(lines: DecisionView[], transcript: TranscriptEntry[]): DecisionView[] {
  const byHash = new Map<string, TranscriptEntry>();
  for (const e of transcript) if (!byHash.has(e.requestHash)) byHash.set(e.requestHash, e);
  return lines.map((d) => {
    // The first request of a turn holds the system and user messages; later ones only append
    // the model's tool calls and their results, which the line already records.
    const first = d.requestHashes[0];
    const entry = first === undefined ? undefined : byHash.get(first);
    return entry ? { ...d, context: contextOf(entry) } : d;
  });
}

function contextOf(e: TranscriptEntry): ModelContext {
  return {
    requestHash: e.requestHash,
    seq: e.seq,
    messages: e.request.messages
      .filter((m) => m.role === "system" || m.role === "user")
      .map((m) => ({ role: m.role, content: textOf(m.content) })),
  };
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p: unknown) =>
      p !== null && typeof p === "object" && "text" in p && typeof p.text === "string"
        ? p.text
        : "",
    )
    .join("");
}
