import { z } from "zod";
import { RunReadError } from "../errors/report-error.js";
import { runFile } from "./layout.js";
import { readJsonFile } from "./run-files.js";
import type { RunResult } from "./run-result.js";

// What the reports rely on in result.json. Loose, so that fields added later (an index block, new
// metrics) pass through untouched, but a file missing these is refused with the reason.
const resultFileSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  strategy: z.looseObject({ name: z.string(), kind: z.string(), path: z.string() }),
  data: z.array(z.looseObject({ symbol: z.string() })),
  period: z.looseObject({
    start: z.string().nullable(),
    end: z.string().nullable(),
    bars: z.number(),
    // Written by newer runners only (older ones wrote the requested window as the period).
    requested: z.looseObject({ bars: z.number() }).optional(),
  }),
  metrics: z.record(z.string(), z.unknown()).nullable(),
  benchmark: z.looseObject({ metrics: z.record(z.string(), z.unknown()).nullable() }),
  memory: z.record(z.string(), z.number()).nullable().optional(),
  // Order counts; rejectReasons is written by newer runners only.
  orders: z
    .looseObject({
      submitted: z.number(),
      filled: z.number(),
      rejected: z.number(),
      cancelled: z.number(),
      expired: z.number(),
      rejectReasons: z.array(z.looseObject({ reason: z.string(), count: z.number() })).optional(),
    })
    .optional(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
  llm: z.record(z.string(), z.unknown()).nullable().optional(),
});

export type ResultFile = z.infer<typeof resultFileSchema>;

/** result.json of a run directory, checked; throws RunReadError with the reason. */
export function readResult(dir: string): ResultFile {
  const file = runFile(dir, "result");
  const parsed = resultFileSchema.safeParse(readJsonFile(file));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "invalid";
    throw new RunReadError(`${file} is not a result.json this version can read (${where}).`);
  }
  return parsed.data;
}

/** config.json of a run directory as a plain object. */
export function readConfig(dir: string): Record<string, unknown> {
  const file = runFile(dir, "config");
  const value = readJsonFile(file);
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new RunReadError(`${file} is not a JSON object.`);
  }
  return value as Record<string, unknown>;
}

/**
 * The checked result as the RunResult that formatSummary takes: the schema checked every field
 * formatSummary dereferences (metrics and benchmark metrics may be null; it handles that).
 */
export const asRunResult = (r: ResultFile): RunResult => r as unknown as RunResult;

/** A number at a key of a loosely typed record, or null. */
export function numberAt(rec: Record<string, unknown> | null | undefined, key: string) {
  const v = rec?.[key];
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

/** result.llm.usage.cost.usd, or null (a code run, or a model without a price). */
export function llmCostUsd(r: ResultFile): number | null {
  const usage = r.llm?.usage;
  if (usage === null || typeof usage !== "object") return null;
  const cost = (usage as { cost?: unknown }).cost;
  if (cost === null || typeof cost !== "object") return null;
  const usd = (cost as { usd?: unknown }).usd;
  return typeof usd === "number" ? usd : null;
}

/** Whether the model server reported no token usage for some billed call (result.json
 * llm.usage.usageUnknown): its tokens and cost are unknown, not 0. */
export function llmUsageUnknown(r: ResultFile): boolean {
  const usage = r.llm?.usage;
  if (usage === null || typeof usage !== "object") return false;
  const unknown = (usage as { usageUnknown?: unknown }).usageUnknown;
  if (unknown === null || typeof unknown !== "object") return false;
  const billed = (unknown as { billedCalls?: unknown }).billedCalls;
  return typeof billed === "number" && billed > 0;
}

export function llmModel(r: ResultFile): string | null {
  const m = r.llm?.model;
  return typeof m === "string" ? m : null;
}
