import type { BrokerConfig } from "../engine/broker-config.js";
import type { Params } from "../strategy/types.js";
import type { AgentOptions } from "./agent-options.js";

export interface DataSpec {
  file: string;
  symbol?: string;
}

/** A fully resolved run: everything needed to reproduce it, written to config.json. */
export interface RunConfig {
  strategyPath: string;
  data: DataSpec[];
  broker: BrokerConfig;
  /** `--param` overrides, merged over the strategy's defaults. */
  params: Params;
  /** Inclusive window, as `YYYY-MM-DD` or an ISO date-time; bars before `from` are history only. */
  from: string | null;
  to: string | null;
  name: string | null;
  /** Where run directories go (default `.agenticbt/runs`). */
  runsRoot: string;
  strict: boolean;
  tz: string | null;
  /** Settings of an LLM strategy (`strategies/*.md` or `--prompt`); null for code strategies. */
  agent: AgentOptions | null;
  /** `--preset notes/x.md=path`: files seeded into the run's memory before it starts. */
  presets: { target: string; file: string }[];
  /** `--memory-from <run>`: start from another run's playbook, notes and reviews. */
  memoryFrom: string | null;
}

export const RESULT_SCHEMA_VERSION = 1;
