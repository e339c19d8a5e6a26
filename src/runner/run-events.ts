import type { ClosedTrade, Fill } from "../engine/types.js";
import type { RunResult } from "./run-result.js";

/** What a run reports while it goes. Renderers (plain lines, ink) consume only these. */
export type RunEvent =
  | {
      type: "run_started";
      id: string;
      dir: string;
      strategy: string;
      symbols: string[];
      bars: number;
    }
  | { type: "progress"; done: number; total: number; time: string; equity: number }
  | { type: "fill"; time: string; fill: Fill }
  | { type: "trade_closed"; time: string; trade: ClosedTrade }
  | { type: "warning"; message: string }
  | { type: "run_finished"; result: RunResult };

export type RunEventListener = (event: RunEvent) => void;
