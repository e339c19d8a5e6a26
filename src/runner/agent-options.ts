import { MOMENT_KINDS, type MomentKind } from "../agent/prompts.js";
import { UsageError } from "../errors/run-errors.js";
import { DEFAULT_MAX_RETRY_WAIT_MS } from "../util/backoff.js";

/** How an LLM strategy runs: the model, its bounds and budgets, cache and replay. No secrets:
 * the API key is read from the environment when the run starts and never stored. */
export interface AgentOptions {
  model: string;
  baseURL: string | null;
  temperature: number | null;
  seed: number | null;
  maxOutputTokens: number | null;
  timeoutMs: number;
  maxRetries: number;
  /** The longest wait before a retry; a server asking for more ends the run `interrupted`. */
  maxRetryWaitMs: number;
  concurrency: number;
  maxSteps: number;
  /** Failed decisions in a row that fail the run. */
  maxFailedDecisions: number;
  every: number;
  contextBars: number;
  moments: MomentKind[];
  maxTokens: number | null;
  maxCost: number | null;
  pricesFile: string | null;
  cache: boolean;
  /** The response cache's directory; null: `.agenticbt/cache` under the working directory. */
  cacheDir: string | null;
  /** A recorded run directory to replay with zero network calls. */
  replay: string | null;
  /** `--prompt "…"` instead of a .md file. */
  prompt: string | null;
  /** `--anonymize`: the model sees neutral tickers, shifted dates and rebased prices. */
  anonymize: boolean;
  /** `--model-cutoff YYYY-MM-DD`; null: the built-in table's entry for the model, if any. */
  modelCutoff: string | null;
}

export const DEFAULT_AGENT_OPTIONS: AgentOptions = {
  model: "gpt-4o-mini",
  baseURL: null,
  temperature: null,
  seed: null,
  maxOutputTokens: null,
  timeoutMs: 60_000,
  maxRetries: 4,
  maxRetryWaitMs: DEFAULT_MAX_RETRY_WAIT_MS,
  concurrency: 4,
  maxSteps: 8,
  maxFailedDecisions: 3,
  every: 1,
  contextBars: 20,
  moments: [...MOMENT_KINDS],
  maxTokens: null,
  maxCost: null,
  pricesFile: null,
  cache: true,
  cacheDir: null,
  replay: null,
  prompt: null,
  anonymize: false,
  modelCutoff: null,
};

/** `--moments eod,fill,close,week,month,run_end` (any subset, comma-separated; "none" for none). */
export function parseMoments(value: string): MomentKind[] {
  if (value.trim() === "none" || value.trim() === "") return [];
  const kinds = value.split(",").map((k) => k.trim());
  for (const k of kinds) {
    if (!(MOMENT_KINDS as string[]).includes(k)) {
      throw new UsageError(
        `--moments: unknown moment "${k}". Use any of ${MOMENT_KINDS.join(", ")} (comma-separated), or none.`,
      );
    }
  }
  return [...new Set(kinds)] as MomentKind[];
}
