import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { dayKey } from "../../engine/calendar.js";
import type { MarketData, Millis } from "../../engine/types.js";
import type { Citation, RecallAnswer } from "../../strategy/types.js";
import { openWriteNoFollow, readFileNoFollow } from "../../util/no-follow.js";
import { plainText } from "../../util/plain-text.js";
import {
  type AgentMomentKind,
  defineMemoryTool,
  type MemoryModel,
  type MemoryMoment,
  type MemorySection,
  type MemorySystem,
  type MemorySystemFactory,
  type MemoryToolSpec,
  recallSeq,
} from "../memory-system.js";
import { type EmbeddingsConfig, httpEmbedder } from "../recall/embeddings.js";
import { RecallEmbeddingError } from "../recall/recall-errors.js";
import { MAX_SNIPPET_CHARS } from "../recall/snippet.js";
import { LAYERED_LOG, LAYERED_SYSTEM, resolveLayeredParams } from "./layered-config.js";
import {
  IMPORTANCE_FACTORS,
  type Layer,
  type LayeredParams,
  layerForImportance,
  type Ranked,
  type ReflectionTrigger,
  recency,
} from "./layered-math.js";
import {
  COMPRESS_PURPOSE,
  compressRequest,
  IMPORTANCE_PURPOSE,
  type ImportanceFacts,
  importanceRequest,
  parseFactors,
  parseSummary,
} from "./layered-model.js";
import {
  barSignals,
  type Factors,
  marketImpact,
  named,
  nextRegime,
  regimeReturn,
  relevance,
  scoreImportance,
  urgency,
} from "./layered-signals.js";
import {
  type DayEndOp,
  LayeredLogError,
  type LayeredOp,
  LayeredState,
  summaryContent,
} from "./layered-state.js";

/** Characters of a memory shown in the decision's context. */
const CONTEXT_CHARS = 500;

const RULES = [
  "- Your memory is layered (seed FinMem): short, mid, long and reflection. Store what matters with memory_store and an importance from 0 to 100; every simulated day importance decays and recency fades, memories whose importance rises past 55 / 85 move to longer-lived layers, fading ones are forgotten. Each decision starts a fresh conversation: anything you do not store is forgotten.",
  "- At every decision you are shown the best memories of each layer (importance × recency); memory_recall searches all layers by keywords. Reflections (memory_reflect) hold your lasting principles.",
].join("\n");

/** With the scorer the memory weighs a memory itself: the rules and prompts do not ask for a
 * number (one given still counts). */
const SCORED_RULE =
  "- Your memory is layered (seed FinMem): short, mid, long and reflection. Store what matters with memory_store; the memory scores its importance (0-100: the market's move, novelty, relevance to your holdings, the source, urgency) unless you give one. Every simulated day importance decays and recency fades, memories whose importance rises past 55 / 85 move to longer-lived layers, fading ones are forgotten. Each decision starts a fresh conversation: anything you do not store is forgotten.";

const SCORED_PROMPTS: Partial<Record<AgentMomentKind, string>> = {
  fill: "An order of yours filled (see the events above). Store what you hold, why, and your exit plan with memory_store.",
  close:
    "A position closed (see the events above). Store the outcome with memory_store: entry, exit, profit or loss and whether the thesis played out.",
};

const MOMENT_PROMPTS: Record<AgentMomentKind, string> = {
  fill: "An order of yours filled (see the events above). Store what you hold, why, and your exit plan with memory_store (importance 60 or more if it must outlast a few days).",
  close:
    "A position closed (see the events above). Store the outcome with memory_store: entry, exit, profit or loss and whether the thesis played out, with an importance that says how much it should shape later trades.",
  eod: "The trading day has ended. Store a brief review of the day with memory_store: what you did, what the market did, and what you are watching next.",
  week: 'The week has ended. Store this week\'s review with memory_store (layer "mid"): performance, trades, what worked, what did not.',
  month:
    'The month has ended. Store this month\'s review with memory_store (layer "long" if it holds lasting lessons): return, drawdown, recurring mistakes, lessons.',
  run_end:
    "The backtest ends at this bar: this is your last memory moment. Store a final review with memory_store, and your lasting principles with memory_reflect.",
};

const REFLECTION_PROMPT: Record<ReflectionTrigger, string> = {
  days: "A reflection is due: 30 days have passed since the last one.",
  loss: "A reflection is due: your equity fell more than the loss threshold over the last days.",
  strategy:
    "A reflection is due: your trades changed direction (long after short, or short after long).",
  regime: "A reflection is due: the market regime changed (from rising to falling, or back).",
  consistency:
    "A reflection is due: a memory you stored today disagrees with the memories you were shown.",
};

const importance = z
  .number()
  .min(0)
  .max(100)
  .describe("0-100. Default: the layer's initial importance (short 50, mid 60, long 90).");

/**
 * INVESTOR-BENCH / FinMem's layered memory: four layers with decaying importance and recency in
 * simulated days, promotion, demotion and clean-up at every day end, reflections on a schedule or
 * after a loss. The state is rebuilt from layered.jsonl (see layered-state.ts).
 */
export class LayeredMemory implements MemorySystem {
  readonly name = "layered";
  readonly rules: string;
  readonly tools: readonly MemoryToolSpec[];
  readonly state: LayeredState;
  private fd: number | null = null;
  private recalls = 0;
  private recallHits = 0;
  /** Memories scored by the recalls: the retrieval's cost in work done (wall-clock time would
   * differ between a run and its replay, whose result.json must agree). */
  private recallScanned = 0;
  /** Net position per symbol from the fills, the direction of the last opening trade, and
   * whether a trade opened the other direction since the last day end. */
  private positions = new Map<string, number>();
  private direction: 1 | -1 | null = null;
  private strategyChanged = false;
  /** The last bar with a fill or a closed trade (a memory stored then records an executed fact). */
  private tradeIndex = -1;
  /** The model modes' calls: answers used, and answers the rule replaced (result.json). */
  private model = { scored: 0, scoreFallbacks: 0, summaries: 0, summaryFallbacks: 0 };
  private warnedFallback = new Set<string>();

  constructor(
    private readonly dir: string,
    readonly params: LayeredParams,
    /** A reflection's embedding (`--embed-model`); null: de-duplicate by tokens. */
    private readonly embed: ReflectionEmbedder | null = null,
    /** The memory policy's `retrieve_limit` in force at a time; null: no cap but the tool's. */
    private readonly retrieveLimitAt: ((time: Millis) => number) | null = null,
    /** The run's bars, for the importance factors and the market regime (null: none known). */
    private readonly market: MarketData | null = null,
    /** The name the model sees for a symbol (an alias under --anonymize): what relevance looks
     * for in a memory's text. */
    private readonly symbolName: (symbol: string) => string = (s) => s,
    /** The run's model (importance and compress mode "model"); null: the rules decide. */
    private readonly complete: MemoryModel | null = null,
    private readonly warn: (message: string) => void = () => {},
  ) {
    this.state = new LayeredState(params);
    const p = params;
    this.rules = p.importanceMode !== "agent" ? RULES.replace(/^[^\n]*/, SCORED_RULE) : RULES;
    this.tools = [
      defineMemoryTool({
        name: "memory_store",
        description:
          "Store a memory in a layer. With a layer and no importance, the importance is the layer's " +
          `initial value (short ${p.layers.short.initialImportance}, mid ${p.layers.mid.initialImportance}, long ${p.layers.long.initialImportance}). ` +
          (p.importanceMode !== "agent"
            ? "With neither, the memory scores the importance (0-100) from the market's move and volume, novelty, relevance to your holdings and the source, and the layer follows it. "
            : "With neither, short at its initial value. ") +
          "Without a layer but with an importance, the layer follows it: below " +
          `${p.jumpLower} short, ${p.jumpLower}-${p.jumpUpper} mid, above ${p.jumpUpper} long.`,
        parameters: z.strictObject({
          content: plainText(1, 4000).describe("Markdown text, 1-4000 characters."),
          layer: z
            .enum(["short", "mid", "long"])
            .optional()
            .describe("short, mid or long (reflections: memory_reflect)."),
          importance: importance.optional(),
        }),
        guide:
          "- memory_store(content, layer?, importance?): store a memory in the short, mid or long layer.",
        run: (args, at) => {
          const scoring =
            args.importance === undefined &&
            args.layer === undefined &&
            p.importanceMode !== "agent";
          const store = (factors?: Factors, scoredBy?: "model" | "fallback") => {
            let layer: Layer;
            let imp: number;
            if (factors !== undefined) {
              imp = scoreImportance(factors, p);
              layer = layerForImportance(imp, p);
            } else {
              layer =
                args.layer ??
                (args.importance === undefined ? "short" : layerForImportance(args.importance, p));
              imp = args.importance ?? p.layers[layer].initialImportance;
            }
            const consistency =
              p.consistencyThreshold > 0 ? this.state.consistencyOf(args.content) : null;
            const op = this.state.store(at.time, at.index, layer, imp, args.content, undefined, {
              ...(factors === undefined ? {} : { factors }),
              ...(scoredBy === undefined ? {} : { scoredBy }),
              consistency,
            });
            this.write(op);
            return {
              result: { ok: true, id: op.id, layer, importance: imp },
              record: { memory: { tool: "store", key: layer, chars: args.content.length } },
            };
          };
          if (!scoring) return store();
          // Without the run's model (a code strategy) the rule scores, synchronously.
          if (p.importanceMode !== "model" || this.complete === null) {
            return store(this.factors(args.content, at.index));
          }
          return this.modelFactors(args.content, at.index).then((r) => store(r.factors, r.by));
        },
      }),
      defineMemoryTool({
        name: "memory_reflect",
        description:
          "Store a reflection: a lasting principle drawn from your memories. A reflection almost " +
          `identical (similarity >= ${p.dedupSimilarity}) to one you kept is not stored twice.`,
        parameters: z.strictObject({
          content: plainText(1, 4000).describe("Markdown text, 1-4000 characters."),
          importance: importance
            .optional()
            .describe(`0-100, default ${p.layers.reflection.initialImportance}.`),
        }),
        guide: "- memory_reflect(content, importance?): store a reflection (a lasting principle).",
        run: (args, at) => {
          const imp = args.importance ?? p.layers.reflection.initialImportance;
          const reflect = (vector?: number[]) => {
            const op = this.state.reflect(at.time, at.index, imp, args.content, vector);
            this.write(op);
            const result =
              op.op === "store"
                ? { ok: true, id: op.id, layer: "reflection", importance: imp }
                : { ok: true, duplicateOf: op.op === "duplicate" ? op.of : null, stored: false };
            return {
              result,
              record: { memory: { tool: "reflect", chars: args.content.length } },
            };
          };
          // Without embeddings the tool stays synchronous (code strategies' ctx.memory.use).
          return this.embed === null ? reflect() : this.embed(args.content).then(reflect);
        },
      }),
      defineMemoryTool({
        name: "memory_recall",
        description:
          "Search all memory layers by keywords. Returns the memories at least " +
          `${p.recallThreshold} similar to the query (token cosine), ranked by similarity × the layer's weight, ` +
          `at most ${p.recallTopK}.`,
        parameters: z.strictObject({
          query: plainText(1, 500).describe("Keywords, 1-500 characters."),
          limit: z
            .number()
            .int()
            .min(1)
            .max(20)
            .default(p.recallTopK)
            .describe("Most memories, 1-20."),
        }),
        guide: "- memory_recall(query, limit): search every layer; returns memories with scores.",
        run: (args, at) => {
          // The policy caps the tool as it caps files' and persistent's recall.
          const cap = this.retrieveLimitAt?.(at.time) ?? args.limit;
          const answer = this.answer(args.query, Math.min(args.limit, cap));
          return {
            result: answer.citations,
            record: { recall: { ...answer, query: args.query } },
          };
        },
      }),
    ];
  }

  stableSection(): null {
    return null;
  }

  volatileSections(): MemorySection[] {
    const top = this.state.top();
    if (top.length === 0) return [];
    const lines = top.map((r) => contextLine(r, this.params));
    return [{ heading: "Memory (layered: best of each layer)", body: lines.join("\n") }];
  }

  momentPrompt(kind: AgentMomentKind): string {
    const scored = this.params.importanceMode !== "agent" ? SCORED_PROMPTS[kind] : undefined;
    return scored ?? MOMENT_PROMPTS[kind];
  }

  pendingPrompt(): string | null {
    const due = this.state.due;
    if (due === null) return null;
    this.state.due = null;
    return `${REFLECTION_PROMPT[due]} Use memory_recall to look back, then write one reflection with memory_reflect: what your memories show about your trading, and the principle to follow from now on.`;
  }

  onMoment(m: MemoryMoment): void | Promise<void> {
    if (m.kind === "fill") {
      this.tradeIndex = m.index;
      this.onFill(m.fill.symbol, m.fill.side === "buy" ? m.fill.qty : -m.fill.qty);
      return;
    }
    if (m.kind === "close") {
      this.tradeIndex = m.index;
      return;
    }
    if (m.kind !== "day_end") return;
    const p = this.params;
    const regime =
      this.market === null || p.regimeWindow <= 0
        ? null
        : nextRegime(this.state.regime, regimeReturn(this.market, m.index, p.regimeWindow), p);
    const strategyChange = this.strategyChanged && p.strategyChangeTrigger;
    this.strategyChanged = false;
    const op = this.state.dayEnd(m.time, m.index, m.equity, { regime, strategyChange });
    const groups = this.state.lastGroups;
    if (p.compressMode !== "model" || this.complete === null || groups.length === 0) {
      this.write(op);
      return;
    }
    return this.summarise(op, groups);
  }

  /**
   * Compress mode "model": the model writes each group's summary, logged in the day end's line
   * (a rebuild reads it there); an unusable answer keeps the rule's summary (counted, warned).
   */
  private async summarise(op: DayEndOp, groups: LayeredState["lastGroups"]): Promise<void> {
    const complete = this.complete as MemoryModel;
    for (const g of groups) {
      const answer = await complete(COMPRESS_PURPOSE, compressRequest(g.members));
      const text = answer === null ? null : parseSummary(answer);
      const entry = op.compressed?.find((c) => c.id === g.id);
      if (text === null || entry === undefined) {
        this.model.summaryFallbacks++;
        this.fellBack(
          "summary",
          `the model gave no usable summary of ${g.members.length} similar memories (empty, failed or over 4000 characters); the newest memory's text stands in (counted in result.json memory.modelSummaryFallbacks).`,
        );
        continue;
      }
      entry.content = summaryContent(text, g.members);
      this.state.rewriteSummary(g.id, entry.content);
      this.model.summaries++;
    }
    this.write(op);
  }

  /** Importance mode "model": the model's five factors, or the rule's when its answer is not
   * five numbers in [0, 1] (counted, warned once). */
  private async modelFactors(
    content: string,
    index: number,
  ): Promise<{ factors: Factors; by: "model" | "fallback" }> {
    const complete = this.complete as MemoryModel;
    const facts = this.facts(content, index);
    // The kept memories most alike, for novelty (read before this one is stored).
    const alike = this.state
      .search(content)
      .slice(0, 3)
      .map((r) => clipLine(r.item.content, CONTEXT_CHARS));
    const answer = await complete(
      IMPORTANCE_PURPOSE,
      importanceRequest(content, { ...facts.shown, alike }, this.params),
    );
    const factors = answer === null ? null : parseFactors(answer);
    if (factors !== null) {
      this.model.scored++;
      return { factors, by: "model" };
    }
    this.model.scoreFallbacks++;
    this.fellBack(
      "importance",
      "the model gave no usable importance (not one JSON object of five factors in [0, 1], a failed call or a spent budget); the rule scored the memory (counted in result.json memory.modelImportanceFallbacks).",
    );
    return { factors: facts.rule, by: "fallback" };
  }

  /** Once per kind: the run goes on with the rule. */
  private fellBack(kind: string, message: string): void {
    if (this.warnedFallback.has(kind)) return;
    this.warnedFallback.add(kind);
    this.warn(`layered memory: ${message}`);
  }

  /** A fill that opens a position (from flat, or through zero) in the direction other than the
   * last opening one is a strategy change. */
  private onFill(symbol: string, signed: number): void {
    const before = this.positions.get(symbol) ?? 0;
    let after = before + signed;
    if (Math.abs(after) < 1e-9) after = 0;
    if (after !== 0 && Math.sign(after) !== Math.sign(before)) {
      const d = after > 0 ? 1 : -1;
      if (this.direction !== null && d !== this.direction) this.strategyChanged = true;
      this.direction = d;
    }
    if (after === 0) this.positions.delete(symbol);
    else this.positions.set(symbol, after);
  }

  /** The five importance factors of a memory stored now (each in [0, 1], rounded to 1e-6). */
  private factors(content: string, index: number): Factors {
    return this.facts(content, index).rule;
  }

  /** The rule's five factors, and the facts they come from as the model is shown them. */
  private facts(
    content: string,
    index: number,
  ): { rule: Factors; shown: Omit<ImportanceFacts, "alike"> } {
    const p = this.params;
    // The symbols the text names (by the names the model sees), else every symbol of the run.
    const mentioned =
      this.market === null
        ? []
        : this.market.symbols.filter((sym) => named(content, [this.symbolName(sym)]).length > 0);
    const bar =
      this.market === null
        ? { move: 0, volumeRatio: 0 }
        : barSignals(
            this.market,
            index,
            p.volumeWindow,
            mentioned.length > 0 ? new Set(mentioned) : undefined,
          );
    const held = [...this.positions.keys()].map(this.symbolName);
    const symbols = (this.market?.symbols ?? []).map(this.symbolName);
    const x: Factors = {
      marketImpact: marketImpact(bar.move, p),
      novelty: this.state.novelty(content),
      relevance: relevance(content, held, symbols),
      source: index === this.tradeIndex ? p.tradeCredibility : p.agentCredibility,
      urgency: urgency(bar.volumeRatio, p),
    };
    for (const f of IMPORTANCE_FACTORS) x[f] = Math.round(x[f] * 1e6) / 1e6;
    const shown: Omit<ImportanceFacts, "alike"> = {
      move: bar.move,
      volumeRatio: bar.volumeRatio,
      held,
      symbols,
      trade: index === this.tradeIndex,
    };
    return { rule: x, shown };
  }

  recall(query: string, limit: number): RecallAnswer {
    return this.answer(query, limit);
  }

  private answer(query: string, limit: number): RecallAnswer {
    const citations = this.state.search(query).slice(0, limit).map(citation);
    this.recallScanned += this.state.items.length;
    this.recalls++;
    this.recallHits += citations.length;
    return { citations, seq: this.state.seq };
  }

  stats(): Record<string, number> {
    const sizes = this.state.sizes();
    const health = this.state.health();
    const c = this.state.counts;
    const perDayEnd = (n: number) =>
      c.dayEnds === 0 ? 0 : Math.round((n / c.dayEnds) * 1e6) / 1e6;
    return {
      ...c,
      recalls: this.recalls,
      recallHits: this.recallHits,
      short: sizes.short,
      mid: sizes.mid,
      long: sizes.long,
      reflection: sizes.reflection,
      logLines: this.state.seq,
      avgImportance: health.avgImportance,
      utilisationShort: health.utilisation.short,
      utilisationMid: health.utilisation.mid,
      utilisationLong: health.utilisation.long,
      utilisationReflection: health.utilisation.reflection,
      promotionsPerDayEnd: perDayEnd(c.promotions),
      demotionsPerDayEnd: perDayEnd(c.demotions),
      recallScanned: this.recallScanned,
      // Only with a model mode: the result of a run without one keeps its keys.
      ...(this.params.importanceMode === "model"
        ? {
            modelImportance: this.model.scored,
            modelImportanceFallbacks: this.model.scoreFallbacks,
          }
        : {}),
      ...(this.params.compressMode === "model"
        ? {
            modelSummaries: this.model.summaries,
            modelSummaryFallbacks: this.model.summaryFallbacks,
          }
        : {}),
    };
  }

  checkpoint(): unknown {
    return {
      seq: this.state.seq,
      recalls: this.recalls,
      recallHits: this.recallHits,
      recallScanned: this.recallScanned,
      positions: Object.fromEntries(this.positions),
      direction: this.direction,
      strategyChanged: this.strategyChanged,
      tradeIndex: this.tradeIndex,
      ...(this.usesModel() ? { model: { ...this.model } } : {}),
    };
  }

  private usesModel(): boolean {
    return this.params.importanceMode === "model" || this.params.compressMode === "model";
  }

  /** A resume: the state is rebuilt from the log up to the checkpoint's line; what the log does
   * not hold (positions, the last trade direction) comes from the checkpoint. */
  restore(state: unknown): void {
    const cp = z
      .object({
        seq: z.number().int().min(0),
        recalls: z.number(),
        recallHits: z.number(),
        recallScanned: z.number().optional(),
        positions: z.record(z.string(), z.number()).optional(),
        direction: z.union([z.literal(1), z.literal(-1), z.null()]).optional(),
        strategyChanged: z.boolean().optional(),
        tradeIndex: z.number().optional(),
        model: z
          .object({
            scored: z.number(),
            scoreFallbacks: z.number(),
            summaries: z.number(),
            summaryFallbacks: z.number(),
          })
          .optional(),
      })
      .parse(state);
    if (cp.model !== undefined) this.model = { ...cp.model };
    for (const op of readLayeredLog(this.dir)) {
      if (op.seq > cp.seq) break;
      this.state.apply(op);
    }
    this.recalls = cp.recalls;
    this.recallHits = cp.recallHits;
    this.recallScanned = cp.recallScanned ?? 0;
    this.positions = new Map(Object.entries(cp.positions ?? {}));
    this.direction = cp.direction ?? null;
    this.strategyChanged = cp.strategyChanged ?? false;
    this.tradeIndex = cp.tradeIndex ?? -1;
  }

  finish(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }

  private write(op: LayeredOp): void {
    this.fd ??= openWriteNoFollow(path.join(this.dir, LAYERED_LOG), { append: true });
    fs.writeSync(this.fd, `${JSON.stringify(op)}\n`);
  }
}

function clipLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function contextLine(r: Ranked, p: LayeredParams): string {
  const i = r.item;
  return `- [${i.layer} #${i.id}, ${dayKey(i.created)}, importance ${i.importance.toFixed(1)}, recency ${recency(i, p).toFixed(2)}] ${clipLine(i.content, CONTEXT_CHARS)}`;
}

function citation(r: Ranked): Citation {
  const i = r.item;
  return {
    path: `${LAYERED_LOG}#${i.id}`,
    startLine: i.line,
    endLine: i.line,
    snippet: clipLine(i.content, MAX_SNIPPET_CHARS),
    score: Math.round(Math.min(1, Math.max(r.score, 1e-9)) * 1e6) / 1e6,
    source: i.layer,
  };
}

/** A reflection's embedding, as logged in layered.jsonl (unit length, float32 values). */
export type ReflectionEmbedder = (text: string) => Promise<number[]>;

/**
 * The run's embeddings endpoint (the recall one: same model, base URL and key) for reflections,
 * or null without `--embed-model`. A replay never calls it: every vector comes from the recorded
 * run's layered.jsonl, and a reflection it lacks is a divergence.
 */
export function reflectionEmbedder(
  config: EmbeddingsConfig | null,
  replayOf: string | null,
): ReflectionEmbedder | null {
  if (config === null) return null;
  if (replayOf !== null || config.offline === true) {
    const recorded = new Map<string, number[]>();
    for (const op of replayOf === null ? [] : readLayeredLog(replayOf)) {
      if ((op.op === "store" || op.op === "duplicate") && op.vector !== undefined) {
        recorded.set(op.content, op.vector);
      }
    }
    return (text) => {
      const vector = recorded.get(text);
      if (vector !== undefined) return Promise.resolve(vector);
      return Promise.reject(
        new RecallEmbeddingError(
          `Replay needs the embedding of the reflection ${JSON.stringify(text.slice(0, 80))}, ` +
            `which the recorded run's ${LAYERED_LOG} does not hold: the replay has diverged from ` +
            "the recording. Replays make no network calls; re-run without --replay to embed again.",
        ),
      );
    };
  }
  const embedder = httpEmbedder(config);
  return async (text) => {
    const [vector] = await embedder.embed([text]);
    return Array.from(vector ?? []);
  };
}

const opSchema = z.looseObject({ seq: z.number().int().min(1), op: z.string() });

/** The operations of a run's layered.jsonl ([] when absent), in order. */
export function readLayeredLog(dir: string): LayeredOp[] {
  const file = path.join(dir, LAYERED_LOG);
  const bytes = readFileNoFollow(file);
  if (bytes === null) return [];
  const out: LayeredOp[] = [];
  const lines = bytes.toString("utf8").split("\n");
  lines.forEach((line, n) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new LayeredLogError(
        `${file}:${n + 1}: not a JSON line; the log is damaged (restore it from a copy, or rerun).`,
      );
    }
    if (!opSchema.safeParse(value).success) {
      throw new LayeredLogError(
        `${file}:${n + 1}: not a layered memory operation (expected {"seq": n, "op": …}).`,
      );
    }
    out.push(value as LayeredOp);
  });
  return out;
}

/** The state as of log line `seq` (all of it when null). */
export function layeredStateAt(
  dir: string,
  params: LayeredParams,
  seq: number | null,
): LayeredState {
  const state = new LayeredState(params);
  for (const op of readLayeredLog(dir)) {
    if (seq !== null && op.seq > seq) break;
    state.apply(op);
  }
  return state;
}

export const layeredMemoryFactory: MemorySystemFactory = {
  ...LAYERED_SYSTEM,
  create: (env) => {
    const policy = env.policy;
    return new LayeredMemory(
      env.dir,
      resolveLayeredParams(env.config),
      reflectionEmbedder(env.embeddings ?? null, env.replayOf),
      policy ? (t) => policy.at(t).retrieve_limit : null,
      env.market ?? null,
      env.symbolName,
      env.complete ?? null,
      env.warn,
    );
  },
  recallRun(r) {
    const params = resolveLayeredParams(r.config);
    const ops = readLayeredLog(r.dir);
    const seq = recallSeq(r, ops, LAYERED_LOG);
    const state = new LayeredState(params);
    for (const op of ops) {
      if (seq !== null && op.seq > seq) break;
      state.apply(op);
    }
    const limit = Math.min(r.limit, r.retrieveLimit ?? r.limit);
    const citations = state.search(r.query).slice(0, limit).map(citation);
    return { citations, seq, items: state.items.length };
  },
};
