import type { BrokerConfig } from "../engine/broker-config.js";
import type { Params } from "../strategy/types.js";

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
}

export const RESULT_SCHEMA_VERSION = 1;
