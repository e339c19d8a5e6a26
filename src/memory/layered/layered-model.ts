import { z } from "zod";
import type { MemoryModelMessage } from "../memory-system.js";
import { IMPORTANCE_FACTORS, type LayeredItem, type LayeredParams } from "./layered-math.js";
import type { Factors } from "./layered-signals.js";

// The layered memory's model modes: the requests (what the model is shown) and the checks of its
// answers. A bad answer is null, and the caller uses its deterministic rule instead.

/** The transcript purposes of the layered memory's model calls. */
export const IMPORTANCE_PURPOSE = "layered.importance";
export const COMPRESS_PURPOSE = "layered.compress";

/** The longest summary the model may write (a memory_store content's limit). */
export const MAX_SUMMARY_CHARS = 4000;

const share = z.number().min(0).max(1);
const factorsSchema = z.object({
  marketImpact: share,
  novelty: share,
  relevance: share,
  source: share,
  urgency: share,
});

/** What the scorer's rule read at the bar, shown to the model as facts. */
export interface ImportanceFacts {
  /** The bar's largest |close-to-close return| (of the symbols the text names, else all). */
  move: number;
  /** The bar's largest volume over its trailing mean (0: unknown). */
  volumeRatio: number;
  held: readonly string[];
  symbols: readonly string[];
  /** Stored at a bar with a fill or a closed trade. */
  trade: boolean;
  /** The kept memories most alike (their text). */
  alike: readonly string[];
}

export function importanceRequest(
  content: string,
  facts: ImportanceFacts,
  p: LayeredParams,
): MemoryModelMessage[] {
  const w = p.importanceWeights;
  const system = [
    "You rate how important a trading memory is. Rate five factors, each a number from 0 to 1:",
    `- marketImpact (${w.marketImpact} points): how much the market moved or may move because of it.`,
    `- novelty (${w.novelty} points): how new it is next to the memories already kept.`,
    `- relevance (${w.relevance} points): how much it bears on the current holdings and symbols.`,
    `- source (${w.source} points): how credible its source is (an executed trade is the most).`,
    `- urgency (${w.urgency} points): how soon it must be acted on.`,
    'Answer with one JSON object and nothing else: {"marketImpact": 0.0, "novelty": 0.0, "relevance": 0.0, "source": 0.0, "urgency": 0.0}',
  ].join("\n");
  const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
  const user = [
    "Memory:",
    content,
    "",
    "Facts at this bar:",
    `- largest close-to-close move: ${pct(facts.move)}`,
    `- largest volume over its ${p.volumeWindow}-bar mean: ${facts.volumeRatio > 0 ? `${facts.volumeRatio.toFixed(2)}x` : "unknown"}`,
    `- holdings: ${facts.held.length > 0 ? facts.held.join(", ") : "none"}`,
    `- symbols of the run: ${facts.symbols.length > 0 ? facts.symbols.join(", ") : "unknown"}`,
    `- written at a bar with a fill or a closed trade: ${facts.trade ? "yes" : "no"}`,
    "",
    "The kept memories most alike:",
    ...(facts.alike.length > 0 ? facts.alike.map((a) => `- ${a}`) : ["- none"]),
  ].join("\n");
  return [
    { role: "system", content: system },
    { role: "user", content: user },
  ];
}

/** The five factors of the model's answer (each rounded to 1e-6), or null when it is not one
 * JSON object of five numbers in [0, 1] (a code fence around it is allowed). */
export function parseFactors(text: string): Factors | null {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start === -1 || end < start) return null;
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start, end + 1));
  } catch {
    return null;
  }
  const parsed = factorsSchema.safeParse(value);
  if (!parsed.success) return null;
  const x = { ...parsed.data };
  for (const f of IMPORTANCE_FACTORS) x[f] = Math.round(x[f] * 1e6) / 1e6;
  return x;
}

export function compressRequest(members: readonly LayeredItem[]): MemoryModelMessage[] {
  const system = [
    "You compress similar trading memories into one summary memory.",
    "Write one short paragraph that keeps every fact, number and lesson they share and the ones that differ between them.",
    "Answer with the summary text only.",
  ].join("\n");
  const user = [
    `${members.length} similar memories, oldest first:`,
    ...members.map((m, k) => `${k + 1}. ${m.content.replace(/\s+/g, " ").trim()}`),
  ].join("\n");
  return [
    { role: "system", content: system },
    { role: "user", content: user },
  ];
}

/** The model's summary, or null when it is empty or longer than MAX_SUMMARY_CHARS. */
export function parseSummary(text: string): string | null {
  const t = text.trim();
  return t === "" || t.length > MAX_SUMMARY_CHARS ? null : t;
}
