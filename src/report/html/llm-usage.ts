import fs from "node:fs";
import {
  costUsd,
  DEFAULT_PRICE_TABLE,
  loadPriceTable,
  type ModelPrice,
  priceFor,
} from "../../agent/llm/pricing.js";
import { parseTimestamp } from "../../data/parse-timestamp.js";
import { llmModel, llmUsageUnknown, type ResultFile } from "../../rundir/run-record.js";
import { decisionLines } from "../decision-lines.js";

/** Running totals after one decisions.jsonl line: simulated time (s), tokens, USD (or null). */
export interface UsagePoint {
  t: number;
  prompt: number;
  completion: number;
  cached: number;
  usd: number | null;
}

type Rec = Record<string, unknown>;
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/**
 * Tokens and cost summed decision by decision, as result.json's usage sums them call by call:
 * cost counts network answers only (cache and replay cost nothing); a line whose calls came
 * from several sources is charged the network share of its tokens.
 */
export function llmUsageOverTime(
  dir: string,
  result: ResultFile,
  config: Rec,
): { points: UsagePoint[]; costNote: string | null } {
  // Counts the server never reported are unknown: no cost is charted from the zeros.
  const { price, note } = llmUsageUnknown(result)
    ? {
        price: null,
        note: "the model server reported no token usage for some calls, so tokens and cost are unknown; the tokens charted are only those it reported.",
      }
    : runPrice(result, config);
  const points: UsagePoint[] = [];
  let prompt = 0;
  let completion = 0;
  let cached = 0;
  let usd = 0;
  for (const line of decisionLines(dir)) {
    const tokens = line.tokens as Rec | undefined;
    const t = typeof line.time === "string" ? parseTimestamp(line.time) : Number.NaN;
    if (tokens === undefined || tokens === null || Number.isNaN(t)) continue;
    const use = {
      prompt: num(tokens.prompt),
      completion: num(tokens.completion),
      cached: num(tokens.cached),
    };
    prompt += use.prompt;
    completion += use.completion;
    cached += use.cached;
    const sources = Array.isArray(line.sources) ? line.sources : [];
    const share = sources.length
      ? sources.filter((s) => s === "network").length / sources.length
      : 1;
    if (price) usd += costUsd(price, use) * share;
    const point = { t: t / 1000, prompt, completion, cached, usd: price ? usd : null };
    // Several lines at one bar (a decision and its moments): the chart keeps the bar's total.
    if (points.at(-1)?.t === point.t) points[points.length - 1] = point;
    else points.push(point);
  }
  return { points, costNote: note };
}

function runPrice(
  result: ResultFile,
  config: Rec,
): { price: ModelPrice | null; note: string | null } {
  const model = llmModel(result);
  if (model === null) return { price: null, note: "result.json names no model." };
  const agent = config.agent as Rec | null | undefined;
  const file = typeof agent?.pricesFile === "string" ? agent.pricesFile : null;
  let table = DEFAULT_PRICE_TABLE;
  if (file !== null) {
    if (!fs.existsSync(file)) {
      return { price: null, note: `the run's price table ${file} no longer exists.` };
    }
    try {
      table = loadPriceTable(file);
    } catch (err) {
      return { price: null, note: (err as Error).message };
    }
  }
  const price = priceFor(table, model);
  return price ? { price, note: null } : { price: null, note: `no price for the model ${model}.` };
}
