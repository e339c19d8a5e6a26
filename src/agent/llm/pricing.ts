import fs from "node:fs";
import { z } from "zod";
import type { TokenUsage } from "../types.js";

/** USD per 1 million tokens. */
export interface ModelPrice {
  input: number;
  /** Prompt tokens served from the provider's prompt cache. */
  cachedInput: number;
  output: number;
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * LIST PRICES AS OF WRITING (2025), USD per 1M tokens, standard tier. Prices change: override or
 * extend them with `--prices <file>`. A model not found here (nor by prefix) has an unknown cost,
 * reported as such, never as 0.
 */
export const DEFAULT_PRICE_TABLE: PriceTable = Object.freeze({
  "gpt-4o": { input: 2.5, cachedInput: 1.25, output: 10 },
  "gpt-4o-mini": { input: 0.15, cachedInput: 0.075, output: 0.6 },
  "gpt-4.1": { input: 2, cachedInput: 0.5, output: 8 },
  "gpt-4.1-mini": { input: 0.4, cachedInput: 0.1, output: 1.6 },
  "gpt-4.1-nano": { input: 0.1, cachedInput: 0.025, output: 0.4 },
  "gpt-5": { input: 1.25, cachedInput: 0.125, output: 10 },
  "gpt-5-mini": { input: 0.25, cachedInput: 0.025, output: 2 },
  "gpt-5-nano": { input: 0.05, cachedInput: 0.005, output: 0.4 },
  o3: { input: 2, cachedInput: 0.5, output: 8 },
  "o4-mini": { input: 1.1, cachedInput: 0.275, output: 4.4 },
  "deepseek-chat": { input: 0.28, cachedInput: 0.028, output: 0.42 },
  "deepseek-reasoner": { input: 0.28, cachedInput: 0.028, output: 0.42 },
});

/** A price file cannot be used. */
export class PriceTableError extends Error {
  override readonly name = "PriceTableError";
}

/** No model costs more per 1M tokens; a larger figure is a typo that would overflow the cost. */
const MAX_PRICE_PER_M = 1_000_000;
const priceNumber = z.number().finite().nonnegative().max(MAX_PRICE_PER_M);
const priceFileSchema = z.record(
  z.string().min(1),
  z.strictObject({
    input: priceNumber,
    // Providers without a prompt-cache discount charge cached tokens as input.
    cachedInput: priceNumber.optional(),
    output: priceNumber,
  }),
);

/**
 * Reads a price file, JSON `{ "<model>": { "input": n, "cachedInput": n, "output": n } }` in USD
 * per 1M tokens (`cachedInput` defaults to `input`), over `base` (the defaults): the file's
 * models replace or add to those of the base.
 */
export function loadPriceTable(file: string, base: PriceTable = DEFAULT_PRICE_TABLE): PriceTable {
  const hint =
    'it should be JSON like { "my-model": { "input": 0.5, "cachedInput": 0.25, "output": 1.5 } }, ' +
    "in USD per 1M tokens";
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new PriceTableError(`Could not read the price file ${file}: ${reason}; ${hint}.`);
  }
  const parsed = priceFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
    throw new PriceTableError(
      `The price file ${file} is invalid${where}: ${issue?.message ?? "bad shape"}; ${hint}.`,
    );
  }
  const table: Record<string, ModelPrice> = { ...base };
  for (const [model, p] of Object.entries(parsed.data)) {
    table[model] = { input: p.input, cachedInput: p.cachedInput ?? p.input, output: p.output };
  }
  return Object.freeze(table);
}

/**
 * The price of a model: exact name first, else the longest table name that is a prefix of it at
 * a word boundary (so dated snapshots like "gpt-4o-2024-08-06" find "gpt-4o", and
 * "gpt-4.1-mini-2025-04-14" finds "gpt-4.1-mini", not "gpt-4.1"); null when unknown.
 */
export function priceFor(table: PriceTable, model: string): ModelPrice | null {
  const exact = table[model];
  if (exact) return exact;
  let best: string | null = null;
  for (const name of Object.keys(table)) {
    if (!model.startsWith(name)) continue;
    const next = model.charAt(name.length);
    if (/[A-Za-z0-9]/.test(next)) continue;
    if (best === null || name.length > best.length) best = name;
  }
  return best === null ? null : (table[best] ?? null);
}

/** USD for one call's tokens. Cached tokens are part of the prompt count, billed at their rate. */
export function costUsd(price: ModelPrice, usage: TokenUsage): number {
  const cached = Math.min(usage.cached, usage.prompt);
  return (
    ((usage.prompt - cached) * price.input +
      cached * price.cachedInput +
      usage.completion * price.output) /
    1_000_000
  );
}
