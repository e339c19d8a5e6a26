import path from "node:path";
import { UsageError } from "../errors/usage-error.js";
import { runFile } from "../rundir/layout.js";
import { readJsonFile } from "../rundir/run-files.js";
import { type StrategyCopy, storedPrompt } from "../rundir/strategy-copy.js";
import { DEFAULT_AGENT_OPTIONS } from "./agent-options.js";
import { DEFAULT_RECALL_OPTIONS, type RunConfig } from "./run-config.js";

/**
 * The config that re-runs the recorded LLM run in `dir` from its transcript (`--replay`): its
 * own settings and stored prompt, every answer from the recording, with zero network calls.
 */
export function replayRunConfig(dir: string, runsRoot: string, name: string | null): RunConfig {
  const recorded = readJsonFile(runFile(dir, "config")) as RunConfig & {
    strategyCopy?: StrategyCopy;
  };
  if (!recorded.agent) {
    throw new UsageError(
      `${dir} is a code-strategy run: there is nothing to replay (code strategies are deterministic; run them again).`,
    );
  }
  // The prompt as the run used it, from the run's own copy: the original file may have changed.
  const stored = recorded.agent.prompt === null ? storedPrompt(dir, recorded.strategyCopy) : null;
  return {
    ...recorded,
    strategySource: stored ?? recorded.strategySource ?? null,
    runsRoot,
    name: name ?? `${recorded.name ?? path.basename(dir)}-replay`,
    // Options added since the run was recorded take their defaults.
    agent: { ...DEFAULT_AGENT_OPTIONS, ...recorded.agent, replay: dir, cache: false },
    presets: recorded.presets ?? [],
    memoryFrom: recorded.memoryFrom ?? null,
    recall: recorded.recall ?? DEFAULT_RECALL_OPTIONS,
  };
}
