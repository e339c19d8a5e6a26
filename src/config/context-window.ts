// The context windows of known models, in tokens: what the memory policy's
// `session_summary_token_percent` takes its percentage of when `--context-window` is not given.
// A model not listed has no known window: the rule is then reported as not applicable, never
// applied to a guessed size. Sizes are the providers' published input windows.

export const MODEL_CONTEXT_WINDOWS: Readonly<Record<string, number>> = Object.freeze({
  "gpt-4o": 128_000,
  "gpt-4o-mini": 128_000,
  "gpt-4-turbo": 128_000,
  "gpt-4": 8_192,
  "gpt-3.5-turbo": 16_385,
  "gpt-4.1": 1_047_576,
  "gpt-4.1-mini": 1_047_576,
  "gpt-4.1-nano": 1_047_576,
  o1: 200_000,
  o3: 200_000,
  "o3-mini": 200_000,
  "o4-mini": 200_000,
  "claude-3-5-sonnet": 200_000,
  "claude-3-5-haiku": 200_000,
  "claude-3-opus": 200_000,
  "claude-3-haiku": 200_000,
});

/** A dated or `-latest` snapshot of a listed model has its window (gpt-4o-2024-08-06). */
const SNAPSHOT_SUFFIX = /^-(\d{4}-\d{2}-\d{2}|\d{8}|\d{4}|latest)$/;

export interface ContextWindow {
  tokens: number | null;
  source: "--context-window" | "model table" | null;
}

/**
 * The context window a run uses: `--context-window` when given, else the table's size of the model
 * (its name without a `provider/` prefix, case-insensitive, or a dated snapshot of a listed name),
 * else unknown.
 */
export function contextWindowOf(model: string, flag: number | null | undefined): ContextWindow {
  // undefined: a run recorded before the setting existed.
  if (flag !== null && flag !== undefined) return { tokens: flag, source: "--context-window" };
  const name = (model.split("/").at(-1) ?? model).toLowerCase();
  const exact = MODEL_CONTEXT_WINDOWS[name];
  if (exact !== undefined) return { tokens: exact, source: "model table" };
  let best: string | null = null;
  for (const listed of Object.keys(MODEL_CONTEXT_WINDOWS)) {
    if (name.startsWith(listed) && SNAPSHOT_SUFFIX.test(name.slice(listed.length))) {
      if (best === null || listed.length > best.length) best = listed;
    }
  }
  return best === null
    ? { tokens: null, source: null }
    : { tokens: MODEL_CONTEXT_WINDOWS[best] ?? null, source: "model table" };
}

/** How the token-percent rule applies to a run, in words (config.json and the docs). */
export function tokenPercentRule(window: ContextWindow, percent: number, model: string): string {
  return window.tokens === null
    ? `not applicable: the context window of model ${model} is unknown; set --context-window <tokens>`
    : `a decision's prompt is summarised at ${Math.floor((window.tokens * percent) / 100)} estimated tokens (${percent}% of ${window.tokens}, from the ${window.source})`;
}
