import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { LlmClient } from "../agent/llm/llm-client.js";
import {
  LlmSettingsError,
  missingKeyWarning,
  resolveLlmSettings,
} from "../agent/llm/llm-settings.js";
import {
  DEFAULT_PRICE_TABLE,
  loadPriceTable,
  type PriceTable,
  priceFor,
} from "../agent/llm/pricing.js";
import { ReplaySource } from "../agent/llm/replay-source.js";
import { DEFAULT_CACHE_DIR, ResponseCache } from "../agent/llm/response-cache.js";
import { readTranscript, TranscriptWriter } from "../agent/llm/transcript.js";
import { CHARS_PER_TOKEN, UsageMeter } from "../agent/llm/usage-meter.js";
import { type ChatRequest, FATAL_FAILURES, LlmError } from "../agent/types.js";
import { withoutCredentials } from "../config/base-url.js";
import { DISTILL_TRANSCRIPT_FILE, type DistillDateBy } from "../config/memory-command-settings.js";
import { UsageError } from "../errors/run-errors.js";
import { oneLine } from "../memory/persistent/entry-file.js";
import { slugify } from "../memory/persistent/slug.js";
import type { DistilledEntry, DistillOutput } from "../rundir/memory-command-schemas.js";
import { lstatOrNull, refuseSymlink } from "../util/no-follow.js";
import {
  type DistillOptions,
  distillByRules,
  openStore,
  outputOf,
  periodText,
  readSources,
  type SourceRun,
  selectedReviews,
  sourcesText,
  unionText,
  writeEntry,
} from "./distill-runs.js";

/** How a model distils: its client settings (run's, as `memory distill` takes them). */
export interface DistillModelOptions {
  /** Null with `replay`: the recording's model. */
  model: string | null;
  baseURL: string | null;
  temperature: number | null;
  seed: number | null;
  maxOutputTokens: number | null;
  timeoutMs: number;
  maxRetries: number;
  maxRetryWaitS: number;
  /** The runs an entry is dated by: those it names, or every distilled run. */
  dateBy: DistillDateBy;
  /** Times a bad answer is asked again before the rules' distillation is used. */
  answerRetries: number;
  maxTokens: number | null;
  maxCost: number | null;
  pricesFile: string | null;
  cache: boolean;
  cacheDir: string | null;
  /** A recorded distillation: its transcript file, or the store directory holding one. */
  replay: string | null;
  /** Said as it happens (the command prints it on stderr); also in the answer's `warnings`. */
  onWarning?: (message: string) => void;
}

/** A distilled entry's title and text: at most this many characters. */
export const MAX_TITLE_CHARS = 80;
export const MAX_TEXT_CHARS = 2000;

/** What the model answers: the entries, each with the runs it draws on. */
export const distillAnswerSchema = z.object({
  entries: z.array(
    z.object({
      title: z.string().trim().min(1).max(MAX_TITLE_CHARS),
      text: z.string().trim().min(1).max(MAX_TEXT_CHARS),
      runs: z.array(z.string()).min(1),
    }),
  ),
});
export type DistillAnswer = z.infer<typeof distillAnswerSchema>;

export const DISTILL_SYSTEM_PROMPT = [
  "You distil the experience of several finished backtest runs of a trading agent into a few durable memory entries that later runs will read.",
  "Each run is shown with its simulated period, the lessons of its playbook and its reviews.",
  "Merge lessons that say the same thing in different words, prefer experience that several runs share, and leave out what is specific to one day.",
  "An entry may draw only on the runs it names: name every run whose lessons or reviews support it, and no other.",
  "Answer with one JSON object and nothing else, in this form:",
  '{"entries": [{"title": "…", "text": "…", "runs": ["<run id>", "…"]}]}',
  `title: at most ${MAX_TITLE_CHARS} characters, a different one for each entry. text: the lesson, at most ${MAX_TEXT_CHARS} characters. runs: the ids of the runs the entry draws on, as written below.`,
].join("\n");

/** The user message: every run (oldest end first) with its period, lessons and reviews. */
export function distillPrompt(
  runs: readonly SourceRun[],
  o: Pick<DistillOptions, "minRuns" | "reviews">,
): string {
  const parts = [`${runs.length} run(s). Each entry must draw on at least ${o.minRuns} run(s).`];
  for (const r of runs) {
    parts.push(`## Run ${r.id}\nPeriod: ${periodText(r.start, r.end)}`);
    parts.push(
      r.lessons.length === 0
        ? "### Lessons\n(none)"
        : `### Lessons\n${r.lessons.map((l) => `- ${l.replace(/\n/g, "\n  ")}`).join("\n")}`,
    );
    const reviews = selectedReviews(r, o.reviews);
    if (o.reviews !== "none") {
      parts.push(
        reviews.length === 0
          ? "### Reviews\n(none)"
          : `### Reviews\n${reviews.map((x) => `#### ${x.key}\n${x.text}`).join("\n\n")}`,
      );
    }
  }
  return parts.join("\n\n");
}

/**
 * The model's answer read: JSON (a ```json fence around it is allowed), the schema, every run
 * known, every title its own file. A string says what is wrong (told to the model when it is
 * asked again).
 */
export function readDistillAnswer(
  content: string,
  runIds: readonly string[],
): DistillAnswer | string {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(content);
  const raw = (fenced?.[1] ?? content).trim();
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return "it is not valid JSON";
  }
  const parsed = distillAnswerSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` at ${issue.path.join(".")}` : "";
    return `it does not have the asked form${where}: ${issue?.message ?? "invalid"}`;
  }
  const known = new Set(runIds);
  const slugs = new Set<string>();
  for (const [i, e] of parsed.data.entries.entries()) {
    const unknown = e.runs.filter((id) => !known.has(id));
    if (unknown.length > 0) {
      return `entry ${i + 1} names unknown run(s) ${unknown.map((u) => JSON.stringify(u)).join(", ")}; the runs are ${runIds.join(", ")}`;
    }
    const slug = slugify(oneLine(e.title));
    if (slugs.has(slug)) return `entry ${i + 1} repeats the title of an earlier entry`;
    slugs.add(slug);
  }
  return parsed.data;
}

/** The extra fields of a model distillation's answer (`--json`). */
export interface ModelDistillOutput extends DistillOutput {
  model: NonNullable<DistillOutput["model"]>;
  warnings: string[];
}

/**
 * `memory distill --model`: the model reads the runs' lessons and reviews and answers the entries
 * (JSON, checked). Its calls go through the LlmClient as a run's do: the response cache, the
 * transcript (`<store>/distill-transcript.jsonl`, the previous one kept as `.bak`), the usage
 * meter, the budget and replay. A bad answer is asked again (`answerRetries`), told what was
 * wrong; then, or when the budget is spent or the call fails after the client's retries, the
 * rules' distillation is written instead, with a warning. A failure no retry can fix (key,
 * model name, URL) and a replay that does not match are errors.
 */
export async function distillRunsWithModel(
  dirs: readonly string[],
  o: DistillOptions,
  m: DistillModelOptions,
): Promise<ModelDistillOutput> {
  const replayFile = m.replay === null ? null : replayFileOf(m.replay);
  const recorded = replayFile === null ? null : readRecording(replayFile);
  const first = recorded?.[0]?.request ?? null;
  const model = m.model ?? first?.model ?? null;
  if (model === null) throw new UsageError("memory distill needs --model <name> (or --replay).");
  const settings = llmSettings(m.baseURL);
  const prices = priceTable(m.pricesFile);
  if (m.maxCost !== null && priceFor(prices, model) === null) {
    throw new UsageError(
      `--max-cost needs a price for model "${model}", and the price table has none. Add it with --prices <file.json>.`,
    );
  }
  const runs = readSources(dirs, o);
  const store = openStore(o);
  const warnings: string[] = [];
  const warn = (message: string) => {
    warnings.push(message);
    m.onWarning?.(message);
  };
  const noKey = missingKeyWarning(settings, recorded !== null);
  if (noKey !== null) warn(noKey);
  const request: ChatRequest = {
    model,
    messages: [
      { role: "system", content: DISTILL_SYSTEM_PROMPT },
      { role: "user", content: distillPrompt(runs, o) },
    ],
  };
  // Unset settings of a replay are the recording's, so its requests hash the same.
  const temperature = m.temperature ?? (recorded ? first?.temperature : undefined) ?? null;
  const seed = m.seed ?? (recorded ? first?.seed : undefined) ?? null;
  const maxTokens = m.maxOutputTokens ?? (recorded ? first?.maxTokens : undefined) ?? null;
  if (temperature !== null) request.temperature = temperature;
  if (seed !== null) request.seed = seed;
  if (maxTokens !== null) request.maxTokens = maxTokens;

  const meter = new UsageMeter(prices);
  const cacheDir = path.resolve(m.cacheDir ?? DEFAULT_CACHE_DIR);
  const cache =
    m.cache && recorded === null
      ? new ResponseCache(cacheDir, (file, err) =>
          warn(`The LLM cache could not store an answer (${file}: ${(err as Error).message}).`),
        )
      : null;
  const transcriptFile = path.join(store.dir, DISTILL_TRANSCRIPT_FILE);
  const partial = `${transcriptFile}.partial`;
  // Checked before any call too, so a link costs no model call.
  for (const f of [transcriptFile, `${transcriptFile}.bak`, partial]) refuseSymlink(f);
  fs.rmSync(partial, { force: true });
  const transcript = new TranscriptWriter(partial);
  const client = new LlmClient({
    model,
    baseURL: settings.baseURL,
    apiKey: settings.apiKey,
    timeoutMs: m.timeoutMs,
    maxRetries: m.maxRetries,
    maxRetryWaitMs: Math.round(m.maxRetryWaitS * 1000),
    // One request at a time, no rate limit: the client's own limiter.
    concurrency: 1,
    cache,
    replay: recorded === null ? null : new ReplaySource(recorded, replayFile ?? ""),
    transcript,
    meter,
    onWarning: warn,
  });

  let asked: Asked = { answer: { entries: [] }, fallback: null };
  try {
    if (runs.some((r) => r.lessons.length > 0 || selectedReviews(r, o.reviews).length > 0)) {
      asked = await askForEntries(client, request, runs, meter, m);
    }
  } finally {
    keepTranscript(partial, transcriptFile);
  }
  const { answer, fallback } = asked;

  let out: DistillOutput;
  if (answer !== null) {
    const entries: DistilledEntry[] = [];
    let below = 0;
    for (const e of answer.entries) {
      const from = runs.filter((r) => e.runs.includes(r.id));
      if (from.length < o.minRuns) {
        below++;
        continue;
      }
      const body = `${e.text}\n\nDrawn from ${from.length} of ${runs.length} distilled runs: ${sourcesText(from)}.`;
      const description = `distilled by ${model} from ${from.length} run(s)`;
      const dated = m.dateBy === "all" ? runs : from;
      entries.push(writeEntry(store, "lesson", e.title, body, description, from, unionText, dated));
    }
    out = outputOf(runs, store, entries, below, o);
  } else {
    warn(`The deterministic distillation was written instead: ${fallback}.`);
    out = distillByRules(runs, store, o);
  }
  const usage = meter.snapshot();
  return {
    ...out,
    model: {
      name: model,
      baseURL: withoutCredentials(settings.baseURL),
      cache: cache !== null,
      replayOf: replayFile,
      transcript: lstatOrNull(transcriptFile) === null ? null : transcriptFile,
      calls: usage.calls,
      billedTokens: usage.billedTokens,
      costUsd: usage.cost.usd,
      fallback,
    },
    warnings,
  };
}

/** The model's entries, or why there are none (the rules' distillation is written then). */
type Asked = { answer: DistillAnswer; fallback: null } | { answer: null; fallback: string };

/**
 * Asks until an answer can be used, at most 1 + `answerRetries` times, each retry told what was
 * wrong with the answer before; stops early when the budget is spent or the call fails for good.
 */
async function askForEntries(
  client: LlmClient,
  request: ChatRequest,
  runs: readonly SourceRun[],
  meter: UsageMeter,
  m: DistillModelOptions,
): Promise<Asked> {
  const ids = runs.map((r) => r.id);
  for (let asked = 0; ; asked++) {
    const spent = budgetSpent(meter, m);
    if (spent !== null) return { answer: null, fallback: spent };
    let content: string;
    try {
      content = (await client.complete(request)).message.content ?? "";
    } catch (err) {
      if (!(err instanceof LlmError)) throw err;
      if (err.type === "replay_divergence" || err.type === "replay_exhausted") {
        throw new UsageError(
          `${err.message} (--replay: distil the same runs with the same settings as the recording)`,
        );
      }
      if (FATAL_FAILURES.has(err.type)) throw err;
      return { answer: null, fallback: `the model call failed: ${err.message}` };
    }
    const read = readDistillAnswer(content, ids);
    if (typeof read !== "string") return { answer: read, fallback: null };
    if (asked >= m.answerRetries) {
      return {
        answer: null,
        fallback: `the model's answer could not be used after ${asked + 1} attempt(s): ${read}`,
      };
    }
    request.messages = [
      ...request.messages,
      { role: "assistant", content },
      {
        role: "user",
        content: `That answer cannot be used: ${read}. Answer again with the JSON object only.`,
      },
    ];
  }
}

/** The recording `--replay` names: a transcript file, or a store directory holding one. */
function replayFileOf(given: string): string {
  const st = lstatOrNull(given);
  if (st?.isSymbolicLink()) refuseSymlink(given);
  const file = st?.isDirectory() ? path.join(given, DISTILL_TRANSCRIPT_FILE) : given;
  if (lstatOrNull(file) === null) {
    throw new UsageError(
      `Cannot replay ${given}: ${st === null ? "it does not exist" : `it has no ${DISTILL_TRANSCRIPT_FILE}`}. Pass a store distilled with --model, or its ${DISTILL_TRANSCRIPT_FILE}.`,
    );
  }
  return path.resolve(file);
}

function readRecording(file: string) {
  let entries: ReturnType<typeof readTranscript>;
  try {
    entries = readTranscript(file);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (entries.length === 0) {
    throw new UsageError(`Cannot replay ${file}: it records no model call.`);
  }
  return entries;
}

function llmSettings(baseURL: string | null) {
  try {
    return resolveLlmSettings({ baseURL: baseURL ?? undefined }, process.env);
  } catch (err) {
    if (err instanceof LlmSettingsError) throw new UsageError(err.message);
    throw err;
  }
}

function priceTable(file: string | null): PriceTable {
  if (file === null) return DEFAULT_PRICE_TABLE;
  try {
    return loadPriceTable(file);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Why no more may be asked (the budget is spent), or null. */
function budgetSpent(meter: UsageMeter, m: DistillModelOptions): string | null {
  const about =
    meter.unknownUsageCalls() > 0 ? ` (estimated at ${CHARS_PER_TOKEN} characters per token)` : "";
  const tokens = meter.budgetTokenCount();
  if (m.maxTokens !== null && tokens >= m.maxTokens) {
    return `token budget spent: ${tokens} billed tokens${about} >= --max-tokens ${m.maxTokens}`;
  }
  const cost = meter.budgetCostUsd();
  if (m.maxCost !== null && cost !== null && cost >= m.maxCost) {
    return `cost budget spent: $${cost.toFixed(4)}${about} >= --max-cost ${m.maxCost}`;
  }
  return null;
}

/**
 * The finished transcript replaces the store's previous one, which is kept as `.bak`; with no
 * call made (nothing to distil) the previous one stays.
 */
function keepTranscript(partial: string, file: string): void {
  if (lstatOrNull(partial) === null) return;
  const bak = `${file}.bak`;
  refuseSymlink(file);
  refuseSymlink(bak);
  if (lstatOrNull(file) !== null) fs.renameSync(file, bak);
  fs.renameSync(partial, file);
}
