// The run directory's names, written once: the runner writes through them, every command reads
// through them. The memory's names (playbook.md, journal/, index.sqlite...) are the memory's own,
// in memory/memory-layout.ts and beside each system; memory-snapshot.ts lists what a resume rolls
// back. Only leaf modules are imported here: `list` and `show` load this too.
import path from "node:path";
import { TRANSCRIPT_FILE } from "../agent/llm/transcript-file.js";

/** Every file of a run directory outside its memory, by role. */
export const RUN_FILE = {
  /** The run's outcome: `running` until the end, then its commit point. */
  result: "result.json",
  /** The resolved settings, written before the first bar (a resume runs from them). */
  config: "config.json",
  /** Names the process running the run (list's `interrupted (process gone)`). */
  lock: "run.lock",
  /** The state a resume verifies, saved between bars. */
  checkpoint: "checkpoint.json",
  /** What a resume needs besides the checkpoint (hidden: not run output). */
  resume: ".resume",
  /** An LLM run's model calls, appended as they are made. */
  transcript: TRANSCRIPT_FILE,
  /** An LLM strategy's prompt as the run used it (a code strategy's copy is `strategy.<ext>`). */
  prompt: "strategy.md",
  equity: "equity.csv",
  trades: "trades.csv",
  orders: "orders.jsonl",
  decisions: "decisions.jsonl",
  /** The indicators a code strategy created through ctx.indicator (the report draws them). */
  indicators: "indicators.json",
  /** Written after result.json; `agenticbt report` writes it again. */
  report: "report.html",
} as const;

export type RunFileRole = keyof typeof RUN_FILE;

/**
 * What the end of a run writes from the simulation, in this order (a write error fails the run,
 * the first in this order wins). A resumed run writes them byte for byte as an uninterrupted one.
 * Adding one: a name here, and its writer in write-outputs.ts (the compiler asks for it).
 */
export const SIMULATION_OUTPUTS = [
  "equity",
  "trades",
  "orders",
  "decisions",
  "indicators",
] as const;

export type SimulationOutput = (typeof SIMULATION_OUTPUTS)[number];

/** `dir`'s file of this role. */
export function runFile(dir: string, role: RunFileRole): string {
  return path.join(dir, RUN_FILE[role]);
}
