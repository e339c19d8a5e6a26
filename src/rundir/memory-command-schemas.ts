import { z } from "zod";
import { recallHealthSchema } from "./schemas.js";

// The `--json` outputs of `memory reindex` and `memory distill`: the report functions return
// these types, and the tests validate the printed JSON with them.

/** `memory reindex <run>`: the rebuilt index and where the old one was kept. */
export const reindexOutputSchema = z.object({
  run: z.object({ id: z.string(), dir: z.string() }),
  /** The new index's health (files, chunks, errors, vectors). */
  index: recallHealthSchema,
  /** Vectors carried over from the old index (a hybrid run's embeddings: no network needed). */
  vectorsKept: z.number(),
  /** The previous index, kept as `index.sqlite.bak`; null when there was none. */
  backup: z.string().nullable(),
});
export type ReindexOutput = z.infer<typeof reindexOutputSchema>;

/** One entry `memory distill` wrote. */
export const distilledEntrySchema = z.object({
  file: z.string(),
  title: z.string(),
  kind: z.enum(["lesson", "review"]),
  /** The source runs (a lesson the runs share has several). */
  runs: z.array(z.string()),
  /** The window the entry's knowledge comes from: its runs' first bar to their last. */
  period: z.string(),
});
export type DistilledEntry = z.infer<typeof distilledEntrySchema>;

/** `memory distill <runs…> --into <namespace>`. */
export const distillOutputSchema = z.object({
  namespace: z.string(),
  store: z.string(),
  runs: z.array(
    z.object({ id: z.string(), period: z.string(), lessons: z.number(), reviews: z.number() }),
  ),
  entries: z.array(distilledEntrySchema),
  /** Distinct lessons left out: fewer than `--min-runs` runs learned them (with `--model`: the
   * model's entries drawing on fewer runs). */
  lessonsBelowMinRuns: z.number(),
  /** With `--model` only: the model, its calls, and why the rules' distillation was used instead
   * (`fallback`, null when the model's entries were written). */
  model: z
    .object({
      name: z.string(),
      baseURL: z.string(),
      cache: z.boolean(),
      /** The recording answered from (`--replay`), or null. */
      replayOf: z.string().nullable(),
      /** The store's distill transcript, or null when no call was made. */
      transcript: z.string().nullable(),
      calls: z.object({
        total: z.number(),
        network: z.number(),
        cache: z.number(),
        replay: z.number(),
        failed: z.number(),
      }),
      billedTokens: z.object({ prompt: z.number(), completion: z.number(), cached: z.number() }),
      costUsd: z.number().nullable(),
      fallback: z.string().nullable(),
    })
    .optional(),
  /** With `--model` only: what the user was warned of (also said on stderr). */
  warnings: z.array(z.string()).optional(),
});
export type DistillOutput = z.infer<typeof distillOutputSchema>;
