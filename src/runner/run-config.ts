import {
  type BrokerConfig,
  DEFAULT_RECALL_OPTIONS,
  type RecallOptions,
  type TimeUnit,
} from "../config/run-settings.js";
import type { ColumnMapping } from "../data/columns.js";
import type { ResolvedPolicy } from "../memory/policy/policy-sources.js";
import type { Params } from "../strategy/types.js";
import type { AgentOptions } from "./agent-options.js";

export { DEFAULT_RECALL_OPTIONS, type RecallOptions };

export interface DataSpec {
  file: string;
  symbol?: string;
}

/** A fully resolved run: everything needed to reproduce it, written to config.json. */
export interface RunConfig {
  strategyPath: string;
  /** Read the strategy's text from this file instead of strategyPath (a replay: the recorded
   * run's stored strategy.md). */
  strategySource?: string | null;
  data: DataSpec[];
  broker: BrokerConfig;
  /** `--param` overrides, merged over the strategy's defaults. */
  params: Params;
  /** Written to config.json: the `--param` overrides alone (a replay keeps the recorded ones). */
  paramOverrides?: Params;
  /** Inclusive window, as `YYYY-MM-DD` or an ISO date-time; bars before `from` are history only. */
  from: string | null;
  to: string | null;
  name: string | null;
  /** Where run directories go (default `.agenticbt/runs`). */
  runsRoot: string;
  strict: boolean;
  tz: string | null;
  /** `--time-unit`, `--date-format`, `--columns` (absent: detected / defaults). */
  timeUnit?: TimeUnit;
  dateFormat?: string;
  columns?: ColumnMapping;
  /** Settings of an LLM strategy (`strategies/*.md` or `--prompt`); null for code strategies. */
  agent: AgentOptions | null;
  /** `--preset notes/x.md=path`: files seeded into the run's memory before it starts. */
  presets: { target: string; file: string }[];
  /** `--memory-from <run>`: start from another run's playbook, notes and reviews. */
  memoryFrom: string | null;
  /** How memory recall searches (BM25 alone, or hybrid with embeddings). */
  recall: RecallOptions;
  /** Bars between two checkpoints (default: every bar for an LLM agent, 1000 for code). */
  checkpointEvery?: number;
  /** `--hook-timeout` in ms: how long a strategy hook's promise may stay pending. Absent: the
   * default for code strategies (DEFAULT_HOOK_TIMEOUT_S), none for LLM ones; null: none. */
  hookTimeoutMs?: number | null;
  /**
   * `--memory <name>`: the memory system and its resolved config (`memory.<name>` of
   * agenticbt.config.json with run options over it). Absent (runs recorded before it): files.
   */
  memory?: MemoryChoice;
  /**
   * The memory policy (docs/memory-policy.md): defaults ← agenticbt.config.json `memory` ←
   * --policy-overrides, resolved and checked before the run. Absent (runs recorded before it): the
   * defaults.
   */
  memoryPolicy?: ResolvedPolicy;
}

export interface MemoryChoice {
  system: string;
  /** The system's own settings, as it validated them (null: its defaults). */
  config: unknown;
}

export const RESULT_SCHEMA_VERSION = 1;
