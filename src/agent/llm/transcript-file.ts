/** An LLM run's model calls, one JSON line per call, in its run directory (and a replay's source). */
export const TRANSCRIPT_FILE = "transcript.jsonl";
