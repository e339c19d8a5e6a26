import {
  costUsd,
  DEFAULT_PRICE_TABLE,
  loadPriceTable,
  type ModelPrice,
  priceFor,
} from "../../agent/llm/pricing.js";
import { CHARS_PER_TOKEN } from "../../agent/llm/usage-meter.js";
import type { RunConfig } from "../../runner/run-config.js";
import type { ExperimentWindow } from "./experiment-plan.js";

// An experiment's cost before it starts: each cell's first prompts, measured (built by the agent's
// own code at each window's first bar), times the turns of its runs. Everything below the
// measurement is pure arithmetic, on the assumptions named here.

/**
 * Extra model calls per trading decision beyond the first: tool rounds (an order, a look-up), each
 * re-sending the prompt. Low: none (every decision answers at once); point: one round every other
 * decision; high: two rounds every decision (bounded by --max-steps).
 */
export const ROUNDS_PER_DECISION = { low: 0, point: 0.5, high: 2 } as const;
/** Extra calls per memory turn: low and point none (a note and the answer in one call), high one. */
export const ROUNDS_PER_MOMENT = { low: 0, point: 0, high: 1 } as const;
/** How much later prompts outgrow the first (notes, memory shown, events): high only. */
export const PROMPT_GROWTH = { low: 0, point: 0, high: 0.5 } as const;
/** Completion tokens per call: a sentence or a tool call; high: --max-output-tokens when set. */
export const COMPLETION_TOKENS = { low: 10, point: 50, high: 400 } as const;

/** What one run of a cell on one window would do, as measured before the experiment. */
export interface WindowProbe {
  /** Characters of the first decision's request (messages and tools as JSON). */
  decisionChars: number;
  /** Of the first memory turn's request, or null: the cell has no memory turns. */
  momentChars: number | null;
  bars: number;
  decisions: number;
  /** Bars with a calendar memory moment due (one memory turn each). */
  momentBars: number;
  /** Fills and closes prompt memory turns too (only the run's trades say how many). */
  tradeMoments: boolean;
}

/** A cell as the estimate reads it: its model and price, its bounds, a probe per window. */
export interface CellProbe {
  label: string;
  model: string;
  /** The model's price, or null when the table has none (the cost is then unknown). */
  price: ModelPrice | null;
  maxSteps: number;
  maxOutputTokens: number | null;
  windows: WindowProbe[];
}

/** low, point estimate and high. */
export interface Range {
  low: number;
  point: number;
  high: number;
}

export interface CellEstimate {
  label: string;
  model: string;
  runs: number;
  decisions: number;
  /** Memory turns at calendar moments (fills and closes may add some: see `calls.high`). */
  moments: number;
  /** Tokens of each cell's first decision prompt (the mean over its windows). */
  firstPromptTokens: number;
  calls: Range;
  promptTokens: Range;
  completionTokens: Range;
  tokens: Range;
  /** null: the model's price is unknown (never shown as $0). */
  usd: Range | null;
  /** The price used (USD per 1M tokens), or null. */
  price: ModelPrice | null;
}

export interface ExperimentEstimate {
  runs: number;
  decisions: number;
  moments: number;
  calls: Range;
  promptTokens: Range;
  completionTokens: Range;
  tokens: Range;
  /** null when a cell's price is unknown. */
  usd: Range | null;
  cells: CellEstimate[];
  /** Where the prices came from: the default table or --prices' file. */
  prices: string;
  charsPerToken: number;
}

const KEYS = ["low", "point", "high"] as const;
const range = (f: (k: (typeof KEYS)[number]) => number): Range => ({
  low: f("low"),
  point: f("point"),
  high: f("high"),
});
/** Two ranges added bound by bound. */
export const addRanges = (a: Range, b: Range): Range => range((k) => a[k] + b[k]);
export const ZERO_RANGE: Range = { low: 0, point: 0, high: 0 };

/** Tokens of `chars` characters of a request, as the usage meter estimates them. */
export const tokensOf = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN);

/** One run of a cell on one window: calls, prompt and completion tokens. */
export function estimateRun(
  w: WindowProbe,
  maxSteps: number,
  maxOutputTokens: number | null,
): { calls: Range; prompt: Range; completion: Range } {
  const decision = tokensOf(w.decisionChars);
  const moment = w.momentChars === null ? 0 : tokensOf(w.momentChars);
  const memory = w.momentChars !== null;
  // A turn makes at most --max-steps calls.
  const perDecision = range((k) => Math.min(maxSteps, 1 + ROUNDS_PER_DECISION[k]));
  const perMoment = range((k) => Math.min(maxSteps, 1 + ROUNDS_PER_MOMENT[k]));
  // High: a fill or close could prompt a memory turn at every decision bar without one.
  const moments = range((k) =>
    !memory
      ? 0
      : k === "high" && w.tradeMoments
        ? Math.min(w.bars, w.momentBars + w.decisions)
        : w.momentBars,
  );
  const calls = range((k) => w.decisions * perDecision[k] + moments[k] * perMoment[k]);
  const prompt = range((k) =>
    Math.round(
      (w.decisions * perDecision[k] * decision + moments[k] * perMoment[k] * moment) *
        (1 + PROMPT_GROWTH[k]),
    ),
  );
  const completionPerCall = range((k) =>
    k === "high" && maxOutputTokens !== null ? maxOutputTokens : COMPLETION_TOKENS[k],
  );
  const completion = range((k) => calls[k] * completionPerCall[k]);
  return { calls, prompt, completion };
}

/**
 * The experiment's estimate: each cell × window × repeat as `estimateRun` says, by cell and in
 * total, in tokens and (at list price, no prompt-cache discount) dollars.
 */
export function estimateExperiment(
  cells: readonly CellProbe[],
  repeats: number,
  prices: string,
): ExperimentEstimate {
  const out: CellEstimate[] = cells.map((c) => {
    let calls = ZERO_RANGE;
    let prompt = ZERO_RANGE;
    let completion = ZERO_RANGE;
    let decisions = 0;
    let moments = 0;
    for (const w of c.windows) {
      const r = estimateRun(w, c.maxSteps, c.maxOutputTokens);
      calls = addRanges(
        calls,
        range((k) => r.calls[k] * repeats),
      );
      prompt = addRanges(
        prompt,
        range((k) => r.prompt[k] * repeats),
      );
      completion = addRanges(
        completion,
        range((k) => r.completion[k] * repeats),
      );
      decisions += w.decisions * repeats;
      moments += (w.momentChars === null ? 0 : w.momentBars) * repeats;
    }
    const price = c.price;
    const first =
      c.windows.reduce((n, w) => n + tokensOf(w.decisionChars), 0) / Math.max(1, c.windows.length);
    return {
      label: c.label,
      model: c.model,
      runs: c.windows.length * repeats,
      decisions,
      moments,
      firstPromptTokens: Math.round(first),
      calls,
      promptTokens: prompt,
      completionTokens: completion,
      tokens: addRanges(prompt, completion),
      usd:
        price === null
          ? null
          : range((k) =>
              costUsd(price, { prompt: prompt[k], completion: completion[k], cached: 0 }),
            ),
      price,
    };
  });
  const sum = (f: (c: CellEstimate) => Range) =>
    out.reduce((a, c) => addRanges(a, f(c)), ZERO_RANGE);
  const priced = out.every((c) => c.usd !== null);
  return {
    runs: out.reduce((n, c) => n + c.runs, 0),
    decisions: out.reduce((n, c) => n + c.decisions, 0),
    moments: out.reduce((n, c) => n + c.moments, 0),
    calls: sum((c) => c.calls),
    promptTokens: sum((c) => c.promptTokens),
    completionTokens: sum((c) => c.completionTokens),
    tokens: sum((c) => c.tokens),
    usd: priced ? sum((c) => c.usd as Range) : null,
    cells: out,
    prices,
    charsPerToken: CHARS_PER_TOKEN,
  };
}

/** The price table a cell's runs use (--prices' file over the defaults), and its name. */
export function priceTableOf(run: RunConfig): {
  table: Parameters<typeof priceFor>[0];
  source: string;
} {
  const file = run.agent?.pricesFile ?? null;
  return file
    ? { table: loadPriceTable(file), source: `--prices ${file}` }
    : { table: DEFAULT_PRICE_TABLE, source: "the default price table (list prices, 2025)" };
}

/**
 * Measures each cell's first prompts on each window (the agent builds them; no model is called)
 * and estimates the experiment.
 */
export async function probeExperiment(
  cells: readonly { label: string; run: RunConfig }[],
  windows: readonly ExperimentWindow[],
  repeats: number,
): Promise<ExperimentEstimate> {
  const { measureFirstPrompts } = await import("../../runner/first-prompts.js");
  const { loadData } = await import("../../runner/load-data.js");
  // Data is not an axis: cells that read the same files on the same window share one load.
  const loads = new Map<string, ReturnType<typeof loadData>>();
  const load = (run: RunConfig) => {
    const { data, from, to, strict, tz, timeUnit, dateFormat, columns } = run;
    const key = JSON.stringify([data, from, to, strict, tz, timeUnit, dateFormat, columns]);
    const found = loads.get(key) ?? loadData(run);
    loads.set(key, found);
    return found;
  };
  const probes: CellProbe[] = [];
  const sources = new Set<string>();
  for (const c of cells) {
    const agent = c.run.agent;
    if (agent === null) throw new TypeError(`${c.label} is not an LLM strategy's cell`);
    const { table, source } = priceTableOf(c.run);
    sources.add(source);
    const measured: WindowProbe[] = [];
    for (const w of windows) {
      const run = { ...c.run, from: w.from, to: w.to };
      const m = await measureFirstPrompts(run, load(run));
      measured.push({
        decisionChars: m.decision.chars,
        momentChars: m.moment?.chars ?? null,
        bars: m.bars,
        decisions: m.decisions,
        momentBars: m.momentBars,
        tradeMoments: m.tradeMoments,
      });
    }
    probes.push({
      label: c.label,
      model: agent.model,
      price: priceFor(table, agent.model),
      maxSteps: agent.maxSteps,
      maxOutputTokens: agent.maxOutputTokens,
      windows: measured,
    });
  }
  return estimateExperiment(probes, repeats, [...sources].join("; "));
}
