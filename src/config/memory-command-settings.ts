import { AGENT_SETTINGS } from "./run-settings.js";
import { choice, num, text } from "./setting.js";

// The settings of `agenticbt memory distill` (flag, default, range and help once): which of the
// finished runs' lessons and reviews become entries of the persistent store, and, with --model,
// the model that distils them (its client settings are run's, reused with their ranges).

/** Which reviews are distilled: monthly ones (the consolidated memory), every one, or none. */
export const DISTILL_REVIEWS = ["month", "all", "none"] as const;
export type DistillReviews = (typeof DISTILL_REVIEWS)[number];

/** What dates a model's entry: the runs it names, or every run the model read. */
export const DISTILL_DATE_BY = ["sources", "all"] as const;
export type DistillDateBy = (typeof DISTILL_DATE_BY)[number];

/** A model distillation's transcript, in the store's directory (the previous one kept as .bak). */
export const DISTILL_TRANSCRIPT_FILE = "distill-transcript.jsonl";

const A = AGENT_SETTINGS;

export const DISTILL_SETTINGS = {
  minRuns: num({
    group: "memory",
    flag: "--min-runs",
    arg: "<n>",
    help: "keep a playbook lesson only when this many of the runs learned it (the same text): 1 keeps every lesson, 2 or more keeps the experience the runs share; with --model, an entry must draw on this many runs",
    default: 1,
    min: 1,
    integer: true,
  }),
  reviews: choice({
    group: "memory",
    flag: "--reviews",
    arg: "<which>",
    help: "reviews distilled as entries (with --model: shown to the model): month (monthly reviews), all (weekly too), none",
    choices: DISTILL_REVIEWS,
    default: "month",
  }),
  // No default and no environment variable: without --model the distillation is deterministic.
  model: text({
    group: "agent",
    flag: "--model",
    arg: "<name>",
    help: "distil with this model: it reads the runs' lessons and reviews and writes the entries (none: the deterministic distillation; with --replay: the recording's model)",
    rule: { ok: (s) => s.trim() !== "", message: "it is empty: pass a model name." },
  }),
  dateBy: choice({
    group: "memory",
    flag: "--date-by",
    arg: "<runs>",
    help: "with --model, the runs an entry's period is the union of (the look-ahead guard reads its end): sources (the runs it names) or all (every distilled run, as the model read them all)",
    choices: DISTILL_DATE_BY,
    default: "sources",
  }),
  baseURL: A.baseURL,
  temperature: A.temperature,
  seed: A.seed,
  maxOutputTokens: A.maxOutputTokens,
  timeoutMs: A.timeoutMs,
  maxRetries: A.maxRetries,
  maxRetryWaitS: { ...A.maxRetryWaitS, help: "longest wait before a model call's retry" },
  answerRetries: num({
    group: "agent",
    flag: "--answer-retries",
    arg: "<n>",
    help: "times the model is asked again, told what was wrong, after an answer that is not valid JSON or names an unknown run; then the deterministic distillation is used, with a warning",
    default: 1,
    min: 0,
    max: 5,
    integer: true,
  }),
  maxTokens: {
    ...A.maxTokens,
    help: "ask the model no more once this many tokens are used (then the deterministic distillation, with a warning)",
  },
  maxCost: {
    ...A.maxCost,
    help: "ask the model no more once the estimated cost reaches this (USD; then the deterministic distillation, with a warning)",
  },
  pricesFile: A.pricesFile,
  cache: A.cache,
  cacheDir: A.cacheDir,
  replay: text({
    group: "agent",
    flag: "--replay",
    arg: "<file|store>",
    help: `answer the model from a recorded distillation (a ${DISTILL_TRANSCRIPT_FILE}, or the store directory holding one), with zero network calls`,
    rule: { ok: (s) => s.trim() !== "", message: "it is empty: pass a file or a store directory." },
  }),
};
