import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { dayKey } from "../../engine/calendar.js";
import type { Millis } from "../../engine/types.js";
import type { Citation, RecallAnswer } from "../../strategy/types.js";
import { openWriteNoFollow, readFileNoFollow } from "../../util/no-follow.js";
import { plainText } from "../../util/plain-text.js";
import {
  type AgentMomentKind,
  defineMemoryTool,
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
import { type LayeredParams, layerForImportance, type Ranked, recency } from "./layered-math.js";
import { LayeredLogError, type LayeredOp, LayeredState } from "./layered-state.js";

/** Characters of a memory shown in the decision's context. */
const CONTEXT_CHARS = 500;

const RULES = [
  "- Your memory is layered (seed FinMem): short, mid, long and reflection. Store what matters with memory_store and an importance from 0 to 100; every simulated day importance decays and recency fades, memories whose importance rises past 55 / 85 move to longer-lived layers, fading ones are forgotten. Each decision starts a fresh conversation: anything you do not store is forgotten.",
  "- At every decision you are shown the best memories of each layer (importance × recency); memory_recall searches all layers by keywords. Reflections (memory_reflect) hold your lasting principles.",
].join("\n");

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

const REFLECTION_PROMPT = {
  days: "A reflection is due: 30 days have passed since the last one.",
  loss: "A reflection is due: your equity fell more than the loss threshold over the last days.",
} as const;

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
  readonly rules = RULES;
  readonly tools: readonly MemoryToolSpec[];
  readonly state: LayeredState;
  private fd: number | null = null;
  private recalls = 0;
  private recallHits = 0;

  constructor(
    private readonly dir: string,
    readonly params: LayeredParams,
    /** A reflection's embedding (`--embed-model`); null: de-duplicate by tokens. */
    private readonly embed: ReflectionEmbedder | null = null,
    /** The memory policy's `retrieve_limit` in force at a time; null: no cap but the tool's. */
    private readonly retrieveLimitAt: ((time: Millis) => number) | null = null,
  ) {
    this.state = new LayeredState(params);
    const p = params;
    this.tools = [
      defineMemoryTool({
        name: "memory_store",
        description:
          "Store a memory in a layer (short by default). importance 0-100 defaults to the layer's " +
          `initial value (short ${p.layers.short.initialImportance}, mid ${p.layers.mid.initialImportance}, long ${p.layers.long.initialImportance}). ` +
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
          const layer =
            args.layer ??
            (args.importance === undefined ? "short" : layerForImportance(args.importance, p));
          const imp = args.importance ?? p.layers[layer].initialImportance;
          const op = this.state.store(at.time, at.index, layer, imp, args.content);
          this.write(op);
          return {
            result: { ok: true, id: op.id, layer, importance: imp },
            record: { memory: { tool: "store", key: layer, chars: args.content.length } },
          };
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
          "Search all memory layers by keywords. Returns the best of each layer (short 3, mid 2, " +
          "long 2, reflection 1 by default), ranked by relevance × importance × recency.",
        parameters: z.strictObject({
          query: plainText(1, 500).describe("Keywords, 1-500 characters."),
          limit: z.number().int().min(1).max(20).default(8).describe("Most memories, 1-20."),
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
    return MOMENT_PROMPTS[kind];
  }

  pendingPrompt(): string | null {
    const due = this.state.due;
    if (due === null) return null;
    this.state.due = null;
    return `${REFLECTION_PROMPT[due]} Use memory_recall to look back, then write one reflection with memory_reflect: what your memories show about your trading, and the principle to follow from now on.`;
  }

  onMoment(m: MemoryMoment): void {
    if (m.kind !== "day_end") return;
    this.write(this.state.dayEnd(m.time, m.index, m.equity));
  }

  recall(query: string, limit: number): RecallAnswer {
    return this.answer(query, limit);
  }

  private answer(query: string, limit: number): RecallAnswer {
    const citations = this.state.search(query).slice(0, limit).map(citation);
    this.recalls++;
    this.recallHits += citations.length;
    return { citations, seq: this.state.seq };
  }

  stats(): Record<string, number> {
    const sizes = this.state.sizes();
    return {
      ...this.state.counts,
      recalls: this.recalls,
      recallHits: this.recallHits,
      short: sizes.short,
      mid: sizes.mid,
      long: sizes.long,
      reflection: sizes.reflection,
      logLines: this.state.seq,
    };
  }

  checkpoint(): unknown {
    return { seq: this.state.seq, recalls: this.recalls, recallHits: this.recallHits };
  }

  /** A resume: the state is rebuilt from the log up to the checkpoint's line. */
  restore(state: unknown): void {
    const cp = z
      .object({ seq: z.number().int().min(0), recalls: z.number(), recallHits: z.number() })
      .parse(state);
    for (const op of readLayeredLog(this.dir)) {
      if (op.seq > cp.seq) break;
      this.state.apply(op);
    }
    this.recalls = cp.recalls;
    this.recallHits = cp.recallHits;
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
