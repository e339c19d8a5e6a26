import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { appendLines, truncatePartialLastLine } from "../../util/append-lines.js";
import { readFileNoFollow, SymlinkError } from "../../util/no-follow.js";
import {
  type ChatRequest,
  LLM_ERROR_TYPES,
  type LlmErrorType,
  type ResponseSource,
  type TokenUsage,
} from "../types.js";
import {
  type RecordedAnswer,
  recordedAnswerSchema,
  recordedRequestSchema,
  toChatRequest,
  toRecordedAnswer,
  toUsage,
  usageSchema,
} from "./recorded-answer.js";

/** One model call as `transcript.jsonl` records it: one JSON line per call, in call order. */
export interface TranscriptEntry {
  /** 1 for the first call of the run. */
  seq: number;
  requestHash: string;
  request: ChatRequest;
  /** Null when the call failed. */
  response: RecordedAnswer | null;
  /** Null when the call succeeded. */
  error: { type: LlmErrorType; message: string; status: number | null } | null;
  usage: TokenUsage;
  latencyMs: number;
  attempts: number;
  source: ResponseSource;
  /** What a call that is not a decision's was for ("layered.importance"…); absent: a decision. */
  purpose?: string;
}

/** The transcript file cannot be read as one. */
export class TranscriptError extends Error {
  override readonly name = "TranscriptError";
}

const entrySchema = z.object({
  seq: z.number().int().positive(),
  requestHash: z.string().regex(/^[0-9a-f]{64}$/),
  request: recordedRequestSchema,
  response: recordedAnswerSchema.nullable(),
  error: z
    .object({
      type: z.enum(LLM_ERROR_TYPES),
      message: z.string(),
      status: z.number().int().nullable().optional(),
    })
    .nullable(),
  usage: usageSchema,
  latencyMs: z.number().nonnegative(),
  attempts: z.number().int().nonnegative(),
  source: z.enum(["network", "cache", "replay"]),
  purpose: z.string().optional(),
});

/**
 * Appends calls to a transcript, one whole line per write, so a crash leaves at most a partial
 * last line (which readTranscript skips). Opening an existing transcript (a resumed run) drops
 * such a partial line first, so that the next line is not glued to it, and continues the seq.
 * A transcript that is a symbolic link is refused, never read, truncated or appended through.
 */
export class TranscriptWriter {
  private nextSeq: number;
  /** Bytes and lines of the file so far, all complete (a run's checkpoint records them). */
  bytes: number;
  lines: number;

  constructor(readonly file: string) {
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    truncatePartialLastLine(file);
    const existing = readTranscript(file);
    this.nextSeq = (existing.at(-1)?.seq ?? 0) + 1;
    this.lines = existing.length;
    this.bytes = fs.existsSync(file) ? fs.lstatSync(file).size : 0;
  }

  /** Records one call and returns its seq. */
  append(entry: Omit<TranscriptEntry, "seq">): number {
    const seq = this.nextSeq;
    this.nextSeq += 1;
    // A failed append (disk full) leaves no partial line and fails the run (AppendError).
    const line = `${JSON.stringify({ seq, ...entry })}\n`;
    appendLines(this.file, line);
    this.bytes += Buffer.byteLength(line, "utf8");
    this.lines += 1;
    return seq;
  }
}

/**
 * Reads a transcript (an absent file is an empty one). A malformed last line is the trace of a
 * crash in the middle of an append and is skipped; a malformed line elsewhere means the file was
 * damaged or edited, and is an error naming the line.
 */
export function readTranscript(file: string): TranscriptEntry[] {
  let text: string;
  try {
    const bytes = readFileNoFollow(file);
    if (bytes === null) return [];
    text = bytes.toString("utf8");
  } catch (err) {
    if (err instanceof SymlinkError) throw err;
    const reason = err instanceof Error ? err.message : String(err);
    throw new TranscriptError(
      `Could not read the transcript ${file}: ${reason}. Check its permissions.`,
    );
  }
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const entries: TranscriptEntry[] = [];
  for (const [i, line] of lines.entries()) {
    const entry = parseEntry(line);
    if (entry) {
      entries.push(entry);
      continue;
    }
    if (i === lines.length - 1) break;
    throw new TranscriptError(
      `Line ${i + 1} of ${file} is not a transcript entry: the file was damaged or edited. ` +
        "Restore it from a copy, or record the run again without --replay.",
    );
  }
  return entries;
}

function parseEntry(line: string): TranscriptEntry | null {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return null;
  }
  const parsed = entrySchema.safeParse(json);
  if (!parsed.success) return null;
  const e = parsed.data;
  return {
    seq: e.seq,
    requestHash: e.requestHash,
    request: toChatRequest(e.request),
    response: e.response ? toRecordedAnswer(e.response) : null,
    error: e.error
      ? { type: e.error.type, message: e.error.message, status: e.error.status ?? null }
      : null,
    usage: toUsage(e.usage),
    latencyMs: e.latencyMs,
    attempts: e.attempts,
    source: e.source,
    ...(e.purpose === undefined ? {} : { purpose: e.purpose }),
  };
}
