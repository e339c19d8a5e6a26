import fs from "node:fs";
import path from "node:path";
import { type ChatRequest, LlmError, type TokenUsage } from "../types.js";
import type { RecordedAnswer } from "./recorded-answer.js";
import { canonicalJson, canonicalRequest } from "./request-hash.js";
import { readTranscript, type TranscriptEntry } from "./transcript.js";
import { TRANSCRIPT_FILE } from "./transcript-file.js";

/** A recorded run cannot be replayed at all (no transcript). */
export class ReplaySourceError extends Error {
  override readonly name = "ReplaySourceError";
}

/** A recorded answer handed back in place of a model call. */
export interface ReplayedAnswer extends RecordedAnswer {
  usage: TokenUsage;
}

/**
 * Answers model calls from a recorded run's transcript, in order, with zero network. The run
 * being replayed must ask exactly the same questions in the same order: each call's request hash
 * is checked against the recording, and the first mismatch stops the replay with an error saying
 * where and how the run diverged. Recorded failures are thrown again as the same LlmError, so a
 * replay also reproduces the run's error handling.
 */
export class ReplaySource {
  private position = 0;

  constructor(
    private readonly entries: readonly TranscriptEntry[],
    /** Names the recording in messages (the run directory). */
    readonly label: string,
  ) {}

  static fromRun(runDir: string): ReplaySource {
    const file = path.join(runDir, TRANSCRIPT_FILE);
    if (!fs.existsSync(file)) {
      throw new ReplaySourceError(
        `Cannot replay ${runDir}: it has no ${TRANSCRIPT_FILE}. Only runs of an LLM agent record ` +
          "one; check the run id or directory.",
      );
    }
    return new ReplaySource(readTranscript(file), runDir);
  }

  /** Calls answered so far. */
  get consumed(): number {
    return this.position;
  }

  /** Calls recorded but not yet replayed. */
  get remaining(): number {
    return this.entries.length - this.position;
  }

  next(requestHash: string, request: ChatRequest): ReplayedAnswer {
    const entry = this.entries[this.position];
    const call = this.position + 1;
    if (!entry) {
      throw new LlmError(
        "replay_exhausted",
        `Replay of ${this.label} ran out of recorded model calls at call ${call}: the recording ` +
          `has ${this.entries.length}. This run asks the model more than the recorded one did ` +
          "(a changed strategy, data or settings); run it without --replay to record a new run.",
      );
    }
    if (entry.requestHash !== requestHash) {
      throw new LlmError(
        "replay_divergence",
        `Replay of ${this.label} diverged at call ${call} (seq ${entry.seq}): ` +
          `${describeDifference(entry.request, request)}. The run no longer asks the model what ` +
          "the recorded run asked (a changed strategy, prompt, data or settings); run it without " +
          "--replay to record a new run.",
      );
    }
    this.position += 1;
    if (entry.error || !entry.response) {
      const recorded = entry.error ?? {
        type: "invalid_response" as const,
        message: "the recording has neither an answer nor an error for this call",
        status: null,
      };
      throw new LlmError(recorded.type, recorded.message, recorded.status, entry.attempts);
    }
    return { ...entry.response, usage: entry.usage };
  }
}

/** A short hint of where two requests differ, for the divergence message. */
export function describeDifference(recorded: ChatRequest, now: ChatRequest): string {
  const a = canonicalRequest(recorded);
  const b = canonicalRequest(now);
  if (a.model !== b.model) return `the model is "${b.model}", was "${a.model}"`;
  const count = Math.min(a.messages.length, b.messages.length);
  for (let i = 0; i < count; i++) {
    const was = canonicalJson(a.messages[i]);
    const is = canonicalJson(b.messages[i]);
    if (was === is) continue;
    const role = b.messages[i]?.role ?? "?";
    const oldRole = a.messages[i]?.role ?? "?";
    const roles = role === oldRole ? role : `${role}, was ${oldRole}`;
    return `message ${i} (${roles}) differs: now ${excerptAt(is, was)}, was ${excerptAt(was, is)}`;
  }
  if (a.messages.length !== b.messages.length) {
    return `the request has ${b.messages.length} messages, the recording ${a.messages.length}`;
  }
  for (const field of ["tools", "temperature", "maxTokens", "seed"] as const) {
    if (canonicalJson(a[field]) !== canonicalJson(b[field])) return `the ${field} differ`;
  }
  return "the requests differ";
}

/** ~60 characters of `text` around where it starts to differ from `other`. */
function excerptAt(text: string, other: string): string {
  let at = 0;
  while (at < text.length && at < other.length && text[at] === other[at]) at++;
  const start = Math.max(0, at - 20);
  const piece = text.slice(start, start + 60);
  return `${start > 0 ? "…" : ""}${piece}${start + 60 < text.length ? "…" : ""}`;
}
