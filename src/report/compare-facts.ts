import { isFailedTurn } from "../agent/failed-turn.js";
import { runFile } from "../rundir/layout.js";
import { readJsonLines, readTextOrNull } from "../rundir/run-files.js";
import { llmModel, type ResultFile } from "../rundir/run-record.js";
import { isJsonObject } from "../util/json-object.js";

type Rec = Record<string, unknown>;

/** What a run was: the facts two runs must share for their figures to be comparable. */
export interface RunIdentity {
  /** First and last simulated bar ("2012-01-03..2012-06-29"). */
  window: string;
  /** Each data file as `SYMBOL sha256[:12]`. */
  data: string;
  /** The strategy's name and the sha256[:12] of its file (a code file or a prompt). */
  strategy: string;
  /** The strategy's parameters as `key=value`, or null when it has none. */
  params: string | null;
  model: string | null;
}

/**
 * Memory counters every system gets, counted the same way from the run's decisions.jsonl (not from
 * each system's own statistics, which name different things): the calls the decisions recorded.
 */
export interface CommonMemory {
  /** Memory tool calls that changed memory (every recorded memory call but a `remember` recall). */
  writes: number;
  /** Recalls recorded (memory_recall, ctx.recall, remember's recall). */
  recalls: number;
  /** Citations those recalls returned. */
  citations: number;
  /** Characters the memory system put in the prompts ÷ all prompt characters (LLM runs). */
  promptShare: number | null;
  /** Distinct hashes of the stable prompt prefix (1: the provider's prompt cache can hit). */
  prefixHashes: number | null;
  /** "ok", or how many files the recall index could not read. */
  indexHealth: string;
  /** The recall index as the run left it (result.json `index`); null when the run has none. */
  index: {
    files: number;
    chunks: number;
    lastSync: string | null;
    /** Embedding vectors (hybrid recall), or null for keywords alone. */
    vectors: number | null;
  } | null;
}

/** What the trader did, whatever drove it. */
export interface Behaviour {
  /** Trading decisions by outcome: orders placed (at least one not rejected), holds (no order),
   * failed turns (LLM), and decisions whose every order was rejected. */
  decisions: { orders: number; hold: number; failed: number; allRejected: number };
  /** Traded value (every fill's |qty × price|) ÷ the mean equity. */
  turnover: number | null;
  /** Mean bars held of the trades (closed, and open at the end). */
  avgHoldingBars: number | null;
}

/** A `remember` recall is recorded as a memory call too; it reads, it does not write. */
const READ_ONLY_TOOLS: ReadonlySet<string> = new Set(["remember_recall"]);

const short = (sha: unknown) => (typeof sha === "string" ? sha.slice(0, 12) : "?");

export function runIdentity(r: ResultFile): RunIdentity {
  const s = r.strategy as Rec;
  const params = isJsonObject(s.params) ? Object.entries(s.params) : [];
  return {
    window: `${r.period.start ?? "?"}..${r.period.end ?? "?"}`,
    data: r.data.map((d) => `${d.symbol} ${short((d as Rec).sha256)}`).join(", "),
    strategy: `${r.strategy.name} ${short(s.sha256)}`,
    params:
      params.length === 0 ? null : params.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(" "),
    model: llmModel(r),
  };
}

/** Warnings for runs that cannot be compared figure for figure: other windows, data, strategy. */
export function identityWarnings(ids: readonly RunIdentity[]): string[] {
  const differ = (f: (i: RunIdentity) => string) => new Set(ids.map(f)).size > 1;
  const out: string[] = [];
  if (differ((i) => i.window))
    out.push("The runs cover different windows: their returns are not over the same period.");
  if (differ((i) => i.data))
    out.push("The runs read different data (files or their content differ).");
  if (differ((i) => i.strategy))
    out.push("The runs ran different strategies (name or file content differ).");
  return out;
}

/** The common memory counters of a run, from its decisions.jsonl lines (`decisionLines`). */
export function commonMemory(decisions: readonly Rec[], r: ResultFile): CommonMemory {
  let writes = 0;
  let recalls = 0;
  let citations = 0;
  let memoryChars = 0;
  let promptChars = 0;
  let measured = false;
  const prefixes = new Set<string>();
  for (const line of decisions) {
    for (const m of arr(line.memory)) {
      if (isJsonObject(m) && !READ_ONLY_TOOLS.has(String(m.tool))) writes++;
    }
    for (const rc of arr(line.recalls)) {
      recalls++;
      if (isJsonObject(rc)) citations += arr(rc.citations).length;
    }
    if (typeof line.prefixHash === "string") prefixes.add(line.prefixHash);
    const chars = line.promptChars;
    if (isJsonObject(chars) && typeof chars.memory === "number") {
      measured = true;
      memoryChars += chars.memory;
      promptChars += num(chars.prefix) + num(chars.volatile);
    }
  }
  const recorded = (r as Rec & { index?: Rec | null }).index;
  const errors = arr(recorded?.errors).length;
  const embeddings = isJsonObject(recorded?.embeddings) ? recorded.embeddings : null;
  return {
    writes,
    recalls,
    citations,
    promptShare: measured && promptChars > 0 ? memoryChars / promptChars : null,
    prefixHashes: r.llm ? prefixes.size : null,
    indexHealth: errors === 0 ? "ok" : `${errors} unreadable`,
    index: isJsonObject(recorded)
      ? {
          files: num(recorded.files),
          chunks: num(recorded.chunks),
          lastSync: str(recorded.lastSync),
          vectors: embeddings === null ? null : num(embeddings.vectors),
        }
      : null,
  };
}

/** Decisions by outcome, turnover and holding time of a run directory and its decisions' lines. */
export function behaviour(dir: string, decisions: readonly Rec[], r: ResultFile): Behaviour {
  const orders = readJsonLines(runFile(dir, "orders")) ?? [];
  const finalStatus = new Map<number, string>();
  const traded = tradedValue(orders);
  for (const o of orders) {
    if (o.event === "fill") {
      if (typeof o.orderId === "number") finalStatus.set(o.orderId, "filled");
    } else if (typeof o.id === "number" && typeof o.status === "string") {
      finalStatus.set(o.id, o.status);
    }
  }
  const d = { orders: 0, hold: 0, failed: 0, allRejected: 0 };
  const llm = Boolean(r.llm);
  let decided = 0;
  for (const line of decisions) {
    // An LLM run records every decision (type "decision"; memory moments apart); a code run
    // records the bars where its hook did something, so its holds are the other bars.
    if (llm ? line.type !== "decision" : line.kind !== "bar") continue;
    decided++;
    const error = isJsonObject(line.error) ? String(line.error.type) : null;
    const placed = arr(line.orders).filter(isJsonObject);
    if (error !== null && isFailedTurn(error)) d.failed++;
    else if (placed.length === 0) d.hold++;
    else if (placed.every((o) => statusOf(o, finalStatus) === "rejected")) d.allRejected++;
    else d.orders++;
  }
  if (!llm) d.hold += Math.max(0, r.period.bars - decided);
  return { decisions: d, turnover: turnover(dir, traded), avgHoldingBars: holdingBars(dir) };
}

function statusOf(o: Rec, finalStatus: ReadonlyMap<number, string>): string | null {
  const id = o.id;
  return (typeof id === "number" ? finalStatus.get(id) : undefined) ?? str(o.status);
}

/** Every fill's |qty × price| in a run's orders.jsonl lines. */
function tradedValue(orders: readonly Rec[]): number {
  let traded = 0;
  for (const o of orders) if (o.event === "fill") traded += Math.abs(num(o.qty) * num(o.price));
  return traded;
}

/**
 * A run directory's turnover, as `compare` shows it: traded value (every fill's |qty × price|)
 * ÷ the mean equity of equity.csv; null without an equity curve.
 */
export function runTurnover(dir: string): number | null {
  return turnover(dir, tradedValue(readJsonLines(runFile(dir, "orders")) ?? []));
}

function turnover(dir: string, traded: number): number | null {
  const text = readTextOrNull(runFile(dir, "equity"));
  if (text === null) return null;
  const lines = text.split("\n");
  const col = (lines[0] ?? "").split(",").indexOf("equity");
  let sum = 0;
  let n = 0;
  for (const line of lines.slice(1)) {
    const v = Number(line.split(",")[col]);
    if (line !== "" && Number.isFinite(v)) {
      sum += v;
      n++;
    }
  }
  return n === 0 || sum <= 0 ? null : traded / (sum / n);
}

function holdingBars(dir: string): number | null {
  const text = readTextOrNull(runFile(dir, "trades"));
  if (text === null) return null;
  const lines = text.split("\n").filter((l) => l !== "");
  const col = (lines[0] ?? "").split(",").indexOf("bars_held");
  if (col < 0 || lines.length < 2) return null;
  let sum = 0;
  for (const line of lines.slice(1)) sum += Number(line.split(",")[col]);
  return Number.isFinite(sum) ? sum / (lines.length - 1) : null;
}

const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
