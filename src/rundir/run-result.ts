import type { AnonymizationRecord } from "../agent/anonymize/anonymizer.js";
import type { AgentStats } from "../agent/llm-strategy.js";
import type { MomentKind } from "../agent/prompts.js";
import type { RecallHealth } from "../memory/recall/recall-health.js";
import type { BenchmarkMetrics, Metrics } from "../metrics/types.js";
import type { OrderCounts } from "./order-outcomes.js";

export type RunStatus =
  | "running"
  | "completed"
  | "failed"
  | "interrupted"
  | "budget_exhausted"
  | "stopped";

export interface DataFileInfo {
  symbol: string;
  file: string;
  sha256: string;
  bars: number;
  first: string | null;
  last: string | null;
}

export interface RunError {
  type: string;
  message: string;
  /** The bar being processed when it was thrown (null: in init, before the first bar). */
  at?: string | null;
  /** `file:line:column` in the strategy file, when the error was thrown there. */
  location?: string | null;
}

/** An error as people read it: type and message, then the bar it was thrown at and where. */
export function describeRunError(e: Readonly<Record<string, unknown>> | RunError): string {
  const at = typeof e.at === "string" ? ` at ${e.at}` : "";
  const where = typeof e.location === "string" ? `, ${e.location}` : "";
  return `${String(e.type)}: ${String(e.message)}${at}${where}`;
}

/** result.json: the one file a user (or `diff`, `list`) needs to judge a run. */
export interface RunResult {
  schemaVersion: number;
  id: string;
  name: string;
  status: RunStatus;
  error: RunError | null;
  /** Why the run ended early on purpose (a spent budget), or absent. */
  stopReason?: string;
  strategy: {
    kind: "code" | "llm";
    path: string;
    name: string;
    params: Record<string, unknown>;
    /** The copy of the strategy in the run directory, and its sha256. */
    file?: string;
    sha256?: string;
  };
  data: DataFileInfo[];
  /** The bars actually simulated: first bar → last bar whose close was processed (null, null, 0
   * before any); `requested` is the window asked for (it differs when a run ends early). */
  period: {
    start: string | null;
    end: string | null;
    bars: number;
    warmupBars: number;
    requested: { start: string | null; end: string | null; bars: number };
  };
  metrics: Metrics | null;
  nullReasons: Record<string, string>;
  benchmark: {
    kind: "buy_and_hold";
    description: string;
    symbols: string[];
    metrics: BenchmarkMetrics | null;
    nullReasons: Record<string, string>;
  };
  /** `dataEnded`: closed trades the broker closed because their symbol's data ended early. */
  trades: { closed: number; openAtEnd: number; dataEnded: number };
  /** Every order placed, by final status, and the grouped reasons of the rejected ones. */
  orders: OrderCounts;
  /** The memory system's statistics (its own names; files: journal, notes, reviews, bytes). */
  memory: Record<string, number> | null;
  /** `--memory`'s system (absent in runs recorded before memory systems: files). */
  memorySystem?: string;
  /** Health of the recall index (index.sqlite) as the run left it: files, chunks, errors. */
  index: RecallHealth | null;
  warnings: string[];
  timings: { loadMs: number; simulateMs: number; writeMs: number; totalMs: number };
  startedAt: string;
  finishedAt: string | null;
  /** Each `agenticbt resume` of this run: when, and from which checkpoint (absent: never). */
  resumed?: ResumeRecord[];
  agenticbt: { version: string; node: string };
  /**
   * LLM runs: the guards against the model remembering the real history (docs/anonymize.md): the
   * `--anonymize` mapping (null when off) and the model's training cut-off, if known.
   */
  lookAhead?: {
    anonymized: AnonymizationRecord | null;
    modelCutoff: { date: string; source: "flag" | "table" } | null;
    /** Whether the test window starts on or before the cut-off (null: cut-off unknown). */
    overlapsTrainingData: boolean | null;
  };
  /** An LLM strategy's model settings and usage (tokens, calls, latency, errors, cost). */
  llm: LlmRunInfo | null;
}

/** One resume of a run, as result.json records it (outside the compared fields). */
export interface ResumeRecord {
  /** Wall-clock time of the resume. */
  at: string;
  /** The checkpoint's bar (label and index) the run was verified at; null: none was saved. */
  fromBar: string | null;
  bar: number | null;
  /** true: it went on from the state saved with the checkpoint; false: it re-executed the run
   * from its first bar (and verified the checkpoint on the way). */
  continued?: boolean;
  /** Bars this resume simulated. */
  simulatedBars?: number;
}

/** The result.json `llm` block. */
export interface LlmRunInfo {
  model: string;
  baseURL: string;
  apiKeySource: "flag" | "env" | "none";
  maxSteps: number;
  maxFailedDecisions: number;
  every: number;
  moments: MomentKind[];
  cache: boolean;
  /** The cache directory, and the answers that could not be stored there (a full disk). */
  cacheDir?: string | null;
  cacheWriteFailures?: number;
  replayOf: string | null;
  agent: AgentStats;
  usage: unknown;
}
