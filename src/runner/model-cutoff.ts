import { UsageError } from "../errors/run-errors.js";

/**
 * Approximate training-data cut-offs of common models, from the providers' model pages (OpenAI
 * "knowledge cutoff", Anthropic "training data cutoff", Meta, DeepSeek and Qwen model cards) as
 * published up to mid-2025. They are approximate (providers round to a month, and later training
 * stages may see newer text), so a window ending a little before the cut-off is not safe either.
 * Matched by the longest prefix of the model name, after any "provider/" prefix; pass
 * `--model-cutoff` for a model not listed, or to override.
 */
export const MODEL_CUTOFFS: Readonly<Record<string, string>> = {
  "gpt-3.5-turbo": "2021-09-01",
  "gpt-4": "2021-09-01",
  "gpt-4-turbo": "2023-12-01",
  "gpt-4o": "2023-10-01",
  "gpt-4o-mini": "2023-10-01",
  "gpt-4.1": "2024-06-01",
  "gpt-4.5": "2023-10-01",
  "gpt-5": "2024-09-30",
  o1: "2023-10-01",
  o3: "2024-06-01",
  "o4-mini": "2024-06-01",
  "claude-3-haiku": "2023-08-01",
  "claude-3-opus": "2023-08-01",
  "claude-3-5-sonnet": "2024-04-01",
  "claude-3-5-haiku": "2024-07-01",
  "claude-3-7-sonnet": "2024-11-01",
  "claude-sonnet-4": "2025-03-01",
  "claude-opus-4": "2025-03-01",
  "llama-3.1": "2023-12-01",
  "llama-3.3": "2023-12-01",
  "deepseek-chat": "2024-07-01",
  "deepseek-reasoner": "2024-07-01",
  "qwen2.5": "2024-09-01",
};

export interface ModelCutoff {
  /** YYYY-MM-DD. */
  date: string;
  source: "flag" | "table";
}

/** `--model-cutoff YYYY-MM-DD`, checked as a real calendar date (exit code 2 otherwise). */
export function parseModelCutoff(value: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  const t = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Number.NaN;
  if (!m || !Number.isFinite(t) || new Date(t).toISOString().slice(0, 10) !== value.trim()) {
    throw new UsageError(
      `--model-cutoff ${JSON.stringify(value)} is not a date: write it as YYYY-MM-DD, e.g. --model-cutoff 2023-10-01.`,
    );
  }
  return value.trim();
}

/** The flag's date, else the table's entry for `model`, else null (unknown). */
export function modelCutoff(model: string, flag: string | null): ModelCutoff | null {
  if (flag !== null) return { date: flag, source: "flag" };
  const name = model.toLowerCase().replace(/^.*\//, "");
  let best: string | null = null;
  for (const prefix of Object.keys(MODEL_CUTOFFS)) {
    const fits = name === prefix || name.startsWith(`${prefix}-`) || name.startsWith(`${prefix}:`);
    if (fits && (best === null || prefix.length > best.length)) best = prefix;
  }
  return best === null ? null : { date: MODEL_CUTOFFS[best] as string, source: "table" };
}

/** The warning for a window that starts on or before the cut-off, or null. */
export function cutoffWarning(
  model: string,
  cutoff: ModelCutoff | null,
  windowStart: string | null,
): string | null {
  if (cutoff === null || windowStart === null) return null;
  if (windowStart.slice(0, 10) > cutoff.date) return null;
  const where = cutoff.source === "flag" ? "--model-cutoff" : "the built-in table (approximate)";
  return (
    `The test window starts ${windowStart.slice(0, 10)}, before ${model}'s training cut-off ` +
    `${cutoff.date} (${where}): the model may remember how these prices went. Use --anonymize, ` +
    "or test on data after the cut-off."
  );
}
