import type { z } from "zod";
import type { ClosedTrade, Fill, MarketData, Millis } from "../engine/types.js";
import type { Citation, MemoryPort, RecallAnswer } from "../strategy/types.js";
import type { MemoryPolicy, SessionSummaryMode } from "./policy/memory-policy.js";
import type { EmbeddingsConfig } from "./recall/embeddings.js";

// One interface for every memory design (docs/memory-systems.md). A run uses
// exactly one system, chosen with `--memory <name>`; the LLM agent and code strategies (through
// `ctx.memory`) reach the same system, with the same tools.
//
// How a system is registered: write a `MemorySystemFactory` (name, one-line description,
// `create(env)`) in `src/memory/systems/<name>-system.ts` and add its entry (a
// `MemorySystemEntry` that imports the module in `load()`) to the list in
// `src/memory/systems/index.ts`. Nothing else: `--memory <name>`, the unknown-name error (exit
// 2), `run --memory a,b` and `compare` all read that list.
//
// Stability: this file is the contract other systems are built on. Changes are additive only
// (new optional members); say so in the commit message.

/** A moment the framework tells the system about, in simulated time (docs/llm-traders.md).
 * Sent before the strategy's own hook of the same moment. */
export type MemoryMoment =
  | { kind: "fill"; time: Millis; index: number; fill: Fill }
  | { kind: "close"; time: Millis; index: number; trade: ClosedTrade }
  | { kind: "day_end"; time: Millis; index: number; day: string; equity: number }
  | { kind: "week_end"; time: Millis; index: number; week: string }
  | { kind: "month_end"; time: Millis; index: number; month: string }
  | { kind: "run_end"; time: Millis; index: number; equity: number };

export type MemoryMomentKind = MemoryMoment["kind"];

/** When and by which decision a memory tool is used. */
export interface MemoryCallSite {
  time: Millis;
  /** Master bar index. */
  index: number;
  /** The bar's label (`YYYY-MM-DD` or `YYYY-MM-DD HH:MM`). */
  label: string;
}

/**
 * What a tool call did, for the decision's line in decisions.jsonl (`memory` and `recalls`).
 * `tool` is short (log, note, store…), `chars` the size of what was written.
 */
export interface MemoryCallRecord {
  memory?: { tool: string; key?: string; chars: number };
  recall?: RecallAnswer & { query: string };
}

/** The result of a memory tool: what the model (or `ctx.memory.use`) gets back, and the record. */
export interface MemoryToolResult {
  result: unknown;
  record?: MemoryCallRecord;
}

/**
 * A memory tool declared as data, like the agent's tools (src/agent/tools/tool-definition.ts):
 * the zod schema renders the JSON schema the model sees and validates every call, from the model
 * or from `ctx.memory.use(name, args)`. `run` gets parsed arguments; it may throw an Error whose
 * message tells the caller what to fix.
 */
export interface MemoryToolSpec<A = unknown> {
  name: string;
  description: string;
  parameters: z.ZodType<A>;
  /** Its line in the system prompt's tool guide ("- name(args): what it does."). */
  guide: string;
  run(args: A, at: MemoryCallSite): MemoryToolResult | Promise<MemoryToolResult>;
}

/** Identity, for inference (`A` comes from the schema). */
export function defineMemoryTool<A>(spec: MemoryToolSpec<A>): MemoryToolSpec<A> {
  return spec;
}

/** A section of the context: `# heading`, a blank line, then `body`. */
export interface MemorySection {
  heading: string;
  body: string;
}

/** What a decision knows when it asks for the volatile memory sections. */
export interface MemoryDecisionView {
  time: Millis;
  index: number;
  /** Symbols with an open position now. */
  held: readonly string[];
  /** The run's symbols. Optional (added for auto-recall's query). */
  symbols?: readonly string[];
}

/** The moments an LLM agent can be prompted at (the `--moments` names). */
export type AgentMomentKind = "fill" | "close" | "eod" | "week" | "month" | "run_end";

/**
 * A run's memory. Created once per run by its factory, told every memory moment, asked for its
 * context at every decision, and finished once. Everything it keeps lives in the run directory.
 */
export interface MemorySystem {
  readonly name: string;
  /** The memory rules of the system prompt (bullets, "- " lines). Fixed for the run: they are
   * part of the cached prompt prefix. */
  readonly rules: string;
  /** The agent's memory tools, in the order the model sees them (stable: part of the prefix). */
  readonly tools: readonly MemoryToolSpec[];
  /** Injected into the stable prefix (files: the playbook). Re-read at each decision, so it must
   * change rarely, or the provider's prompt cache misses. */
  stableSection(): MemorySection | null;
  /** Injected into each decision's user message after the account (files: position notes). */
  volatileSections(view: MemoryDecisionView): MemorySection[];
  /** The prompt of a due agent moment; null: the framework's default (src/agent/prompts.ts). */
  momentPrompt(kind: AgentMomentKind, at: MemoryCallSite): string | null;
  /** Extra prompt for the bar's memory turn even when no agent moment is due (e.g. a reflection
   * the system wants now); null when nothing is due. */
  pendingPrompt(at: MemoryCallSite): string | null;
  /** A memory moment happened (before the strategy's hook for it). A promise (a system asking the
   * run's model, `MemorySystemEnv.complete`) is awaited before that hook (added for model modes). */
  onMoment(moment: MemoryMoment): void | Promise<void>;
  /**
   * False when `onMoment` does nothing: the run then computes no calendar moments for the memory
   * (in a daily run, a day end at every bar). Absent: true.
   */
  readonly usesMoments?: boolean;
  /** Recall as the agent sees it at `asOf` (what `memory_recall` and `ctx.recall` answer). */
  recall(query: string, limit: number, asOf: Millis): RecallAnswer | Promise<RecallAnswer>;
  /** Counts for result.json `memory` (finite numbers; names are the system's own). */
  stats(): Record<string, number>;
  /** State a resumed run needs that is not already in the run directory's files (JSON). */
  checkpoint(): unknown;
  /** Restores `checkpoint()`'s value after a resume, before the first resumed bar. */
  restore(state: unknown): void;
  /** The run ended (any status): flush logs, close indexes. Called once. */
  finish(): void;
  /**
   * Text put in front of a trading decision's user message (persistent: Vibe-Trading's
   * `<recalled-memories>` auto-recall, with the message itself as the query); "" for none.
   * Optional (added for persistent).
   */
  decisionPrefix?(message: string, view: MemoryDecisionView): string;
  /**
   * The memory policy's session rules in force at `time` (docs/memory-policy.md). null: none.
   * Optional (the policy layer).
   */
  sessionSummary?(time: Millis): SessionRules | null;
}

/** The memory policy's rules over one decision's conversation. */
export interface SessionRules {
  /** Past this many messages, a turn's older tool results are stubbed; 0: no count rule. */
  threshold: number;
  /** The most recent messages a summary leaves whole. */
  keep: number;
  /** Percent of the model's context window at which the prompt is summarised too (added with
   * the context window; applies only where the window is known). */
  tokenPercent?: number;
  /** Earlier rounds kept by relevance to the decision; 0: all (added with tokenPercent). */
  relevantLimit?: number;
  /** Messages kept when no earlier round is relevant (added with tokenPercent). */
  fallbackKeep?: number;
  /** How the summary is made (added with tokenPercent; absent: stub). */
  mode?: SessionSummaryMode;
}

/** The memory policy as a system reads it (src/memory/policy/). */
export interface MemoryPolicyView {
  /** The policy in force at simulated time `time`. */
  at(time: Millis): MemoryPolicy;
}

/**
 * What a factory gets. The run directory is already created and its file workspace (playbook,
 * presets, `--memory-from`) seeded; `files` is the files memory over it, which a system may
 * wrap or ignore.
 */
export interface MemorySystemEnv {
  dir: string;
  runId: string;
  /** The system's own config: `memory.<name>` of agenticbt.config.json (undefined: defaults). */
  config: unknown;
  /** Bar times of the run's data (the trading calendar). */
  barTimes: ArrayLike<Millis>;
  /** The run being replayed (`--replay`), or null. */
  replayOf: string | null;
  /** The files memory bound to the run directory. */
  files: MemoryPort;
  /** Counts of the file memory (result.json `memory` of a files run). */
  fileStats: () => Record<string, number>;
  /** Master index of the run's first simulated bar (bars before it are history). Optional. */
  startIndex?: number;
  /** The memory policy in force over the run (absent: the defaults). Optional. */
  policy?: MemoryPolicyView;
  /** A warning for the user (the run's warning events, on stderr). Optional. */
  warn?: (message: string) => void;
  /**
   * The run's embeddings endpoint (`--embed-model`, as recall uses it; `offline` in a replay),
   * or null/absent without one. Optional (added for layered's reflection de-duplication).
   */
  embeddings?: EmbeddingsConfig | null;
  /**
   * The run's bars (master index as in the moments). A system reads only the bars up to the
   * index of the moment or call it is answering. Optional (added for layered's importance
   * factors and market regime).
   */
  market?: MarketData;
  /** The name the model sees for a symbol (an alias under --anonymize). Optional (added with
   * `market`; absent: the symbol itself). */
  symbolName?: (symbol: string) => string;
  /**
   * Replaces playbook.md with `text` after backing it up (the files memory's compression), and
   * tells the recall index; returns the backup's path. Optional (added for playbook compression).
   */
  rewritePlaybook?: (text: string, at: Millis) => string | null;
  /**
   * The run's model, for a system's own judgements (importance scoring, compression): through the
   * same client, response cache, transcript, budget and replay as the agent's decisions. Absent in
   * a code strategy's run: the system uses its deterministic rule. Optional (added for model modes).
   */
  complete?: MemoryModel;
}

/** A message of a memory system's model call. */
export interface MemoryModelMessage {
  role: "system" | "user";
  content: string;
}

/**
 * Asks the run's model; `purpose` names the call in transcript.jsonl (e.g. "layered.importance").
 * Resolves to the answer's text, or null when there is none (an error, a spent budget, an empty
 * answer): the caller then falls back to its deterministic rule.
 */
export type MemoryModel = (
  purpose: string,
  messages: readonly MemoryModelMessage[],
) => Promise<string | null>;

export interface MemorySystemFactory {
  name: string;
  /** One line for `--help` and the unknown-name error. */
  description: string;
  /**
   * Checks the system's config (`memory.<name>` of agenticbt.config.json, undefined when absent)
   * before a run directory exists and returns it resolved (defaults filled): that value is
   * recorded in config.json and is what `create` gets, so a replay or `recall --as-of` uses the
   * recorded settings. Throws an Error whose message tells the fix. Absent: the raw value, or null.
   */
  resolveConfig?(config: unknown): unknown;
  /**
   * The files and directories (relative to the run directory) it writes during a run besides the
   * files memory: `agenticbt resume` rolls them back to the run's start with the rest.
   */
  runFiles?: readonly string[];
  create(env: MemorySystemEnv): MemorySystem;
  /**
   * `agenticbt recall <run> <query>` for a finished run of this system, from its run directory
   * alone (absent: the files' index answers). `asOf` null: all of the run's memory (the user's
   * view). With `asOf`: the state a recall at that bar saw: `seq` when given, else
   * `recordedSeq` (the seq of the bar's first recorded recall in decisions.jsonl) when there is
   * one, else the state at the start of that bar.
   */
  recallRun?(run: FinishedRunRecall): { citations: Citation[]; seq: number | null; items: number };
}

/**
 * A system as the registry lists it before its module loads: what `--help`, the unknown-name
 * error, a config check (before a run directory exists) and resume's roll-back need. `load()`
 * brings the factory itself, so a run loads the one system it uses, never the others.
 */
export interface MemorySystemEntry
  extends Pick<MemorySystemFactory, "name" | "description" | "resolveConfig" | "runFiles"> {
  load(): Promise<MemorySystemFactory>;
}

/**
 * Which write of a system's log `recall <run> --as-of` answers at: `--seq`, else the recorded
 * recall's, else every write of an earlier bar (the state at the start of the bar). Null without
 * `asOf` (after all writes). A seq past the log's end is an error naming the log.
 */
export function recallSeq(
  r: FinishedRunRecall,
  ops: readonly { time: Millis }[],
  logName: string,
): number | null {
  if (r.asOf === null) return null;
  const asOf = r.asOf;
  const seq = r.seq ?? r.recordedSeq ?? ops.filter((op) => op.time < asOf).length;
  if (seq > ops.length) {
    throw new RangeError(`--seq ${seq} is after the last line of ${logName} (${ops.length}).`);
  }
  return seq;
}

/** What `recallRun` gets (added with `recallRun`). */
export interface FinishedRunRecall {
  dir: string;
  /** config.json's `memory.config` (the resolved settings the run used). */
  config: unknown;
  query: string;
  limit: number;
  asOf: Millis | null;
  seq: number | null;
  recordedSeq: number | null;
  /** The memory policy's retrieve_limit in force at `asOf` (absent: none). Optional (added for
   * persistent). */
  retrieveLimit?: number;
}
