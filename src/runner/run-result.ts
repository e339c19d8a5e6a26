import type { RecallHealth } from "../memory/recall/index.js";
import type { BenchmarkMetrics, Metrics } from "../metrics/types.js";
import type { LlmRunInfo } from "./prepare-llm-strategy.js";

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

/** result.json: the one file a user (or `diff`, `list`) needs to judge a run. */
export interface RunResult {
  schemaVersion: number;
  id: string;
  name: string;
  status: RunStatus;
  error: { type: string; message: string } | null;
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
  period: { start: string | null; end: string | null; bars: number; warmupBars: number };
  metrics: Metrics | null;
  nullReasons: Record<string, string>;
  benchmark: {
    kind: "buy_and_hold";
    description: string;
    symbols: string[];
    metrics: BenchmarkMetrics | null;
    nullReasons: Record<string, string>;
  };
  trades: { closed: number; openAtEnd: number };
  orders: {
    submitted: number;
    filled: number;
    rejected: number;
    cancelled: number;
    expired: number;
    working: number;
  };
  memory: Record<string, number> | null;
  /** Health of the recall index (index.sqlite) as the run left it: files, chunks, errors. */
  index: RecallHealth | null;
  warnings: string[];
  timings: { loadMs: number; simulateMs: number; writeMs: number; totalMs: number };
  startedAt: string;
  finishedAt: string | null;
  agenticbt: { version: string; node: string };
  /** An LLM strategy's model settings and usage (tokens, calls, latency, errors, cost). */
  llm: LlmRunInfo | null;
}
