import { type ChatRequest, LlmError } from "../types.js";
import { describeDifference } from "./replay-source.js";
import type { TranscriptEntry } from "./transcript.js";

/**
 * The model calls a run made before it was killed, read back from its own transcript when it is
 * resumed. The resumed run re-executes from its first bar and asks the same questions in the
 * same order; each is answered with the recorded answer, tokens, latency, attempts and source,
 * exactly as the first time, and is not appended to the transcript again. Once they are used up,
 * calls go to the cache and the network as usual. A question that differs from the recording
 * stops the run (the strategy, prompt, data or settings changed).
 */
export class ResumedCalls {
  private position = 0;

  constructor(
    private readonly entries: readonly TranscriptEntry[],
    /** Names the run in messages. */
    readonly label: string,
  ) {}

  get remaining(): number {
    return this.entries.length - this.position;
  }

  /** The recorded call answering this request, or null once every recorded call is used. */
  take(requestHash: string, request: ChatRequest): TranscriptEntry | null {
    const entry = this.entries[this.position];
    if (!entry) return null;
    if (entry.requestHash !== requestHash) {
      throw new LlmError(
        "replay_divergence",
        `Resuming ${this.label} diverged at model call ${this.position + 1} (seq ${entry.seq}): ` +
          `${describeDifference(entry.request, request)}. The resumed run no longer asks what the ` +
          "killed run asked (a changed prompt, data or settings, or a non-deterministic tool), so " +
          "it cannot be resumed exactly; run it again from the start.",
      );
    }
    this.position += 1;
    return entry;
  }
}
