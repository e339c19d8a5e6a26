import type { LlmRunInfo } from "../rundir/run-result.js";

/** The warning a run ends with when model answers could not be stored in the LLM cache. */
export function cacheFailureWarning(llm: LlmRunInfo | null): string | null {
  const n = llm?.cacheWriteFailures ?? 0;
  if (n === 0) return null;
  return `${n} model answer${n === 1 ? "" : "s"} could not be written to the LLM cache (${llm?.cacheDir}): a re-run will pay for ${n === 1 ? "it" : "them"} again. Free disk space or check the cache directory's permissions (--cache-dir).`;
}
