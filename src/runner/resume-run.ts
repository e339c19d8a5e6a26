import fs from "node:fs";
import path from "node:path";
import { RunLockedError, UsageError } from "../errors/run-errors.js";
import { type Checkpoint, readCheckpoint } from "../rundir/checkpoint.js";
import { RUN_FILE, runFile } from "../rundir/layout.js";
import { hasMemorySnapshot, removeTempFiles, restoreMemory } from "../rundir/memory-snapshot.js";
import { resolveRunDir } from "../rundir/resolve-run.js";
import { damagedRunFile } from "../rundir/run-files.js";
import { processGone, readLock } from "../rundir/run-lock.js";
import type { DataFileInfo, RunResult } from "../rundir/run-result.js";
import { type StrategyCopy, storedPrompt } from "../rundir/strategy-copy.js";
import { isJsonObject } from "../util/json-object.js";
import { readFileNoFollow } from "../util/no-follow.js";
import { DEFAULT_AGENT_OPTIONS } from "./agent-options.js";
import { DEFAULT_RECALL_OPTIONS, type RunConfig } from "./run-config.js";

/** Statuses a resume continues: a process that died (`running`) or was interrupted. */
const RESUMABLE = new Set(["running", "interrupted"]);

/** Everything a resume needs from the run directory, read and checked before anything changes. */
export interface ResumePlan {
  dir: string;
  id: string;
  config: RunConfig;
  previous: RunResult;
  checkpoint: Checkpoint | null;
  strategyCopy: StrategyCopy;
  /** The memory's snapshot from before the first bar exists (else it is seeded anew). */
  memorySnapshot: boolean;
}

type StoredConfig = RunConfig & { id?: string; strategyCopy?: StrategyCopy };

/**
 * Reads a run directory for `agenticbt resume`: its config, result and checkpoint. A run that
 * cannot be continued exactly is refused (UsageError, exit code 2) and left untouched.
 */
export function planResume(name: string, runsRoot: string): ResumePlan {
  const dir = resolveRunDir(name, runsRoot);
  const config = readJson(runFile(dir, "config"), dir) as StoredConfig;
  const previous = readJson(runFile(dir, "result"), dir) as RunResult;
  if (typeof previous.status !== "string") {
    throw damaged(runFile(dir, "result"), "has no status");
  }
  if (!RESUMABLE.has(previous.status)) {
    throw new UsageError(
      `${dir} is ${previous.status}: only a run that was killed (status running) or interrupted ` +
        `can be resumed.${previous.status === "completed" ? " It is finished already." : " Run it again from the start."}`,
    );
  }
  const lock = previous.status === "running" ? readLock(dir) : null;
  if (lock !== null && !processGone(lock)) throw new RunLockedError(dir, lock);
  if (config.memory?.system === "persistent") {
    throw new UsageError(
      `${dir} used --memory persistent: its store lives outside the run and already holds what ` +
        "the run wrote before it stopped, so a resume could not see what the run saw. Run it " +
        "again from the start (or --replay it).",
    );
  }
  if (!config.strategyCopy) {
    throw new UsageError(
      `${dir} holds no copy of its strategy (a run recorded by an older agenticbt): it cannot be ` +
        "resumed exactly; run it again.",
    );
  }
  let checkpoint: Checkpoint | null;
  try {
    checkpoint = readCheckpoint(dir);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (checkpoint !== null && checkpoint.runId !== previous.id) {
    throw new UsageError(
      `${runFile(dir, "checkpoint")} belongs to run ${checkpoint.runId}, not ${previous.id}: ` +
        "it was copied in from another run. Remove it to resume from the start.",
    );
  }
  if (checkpoint !== null) {
    const recorded = completeLines(runFile(dir, "transcript"));
    if (recorded < checkpoint.transcriptLines) {
      throw new UsageError(
        `Cannot resume ${dir}: ${RUN_FILE.transcript} has ${recorded} complete model calls, but ` +
          `${checkpoint.transcriptLines} were recorded at the checkpoint (bar ${checkpoint.time}): ` +
          "the transcript was truncated or replaced, so the agent's answers cannot be replayed. " +
          "Restore it, or run the backtest again.",
      );
    }
  }
  const agent = config.agent
    ? {
        ...DEFAULT_AGENT_OPTIONS,
        ...config.agent,
      }
    : null;
  // An LLM run's prompt comes from its own copy (the original file may have changed since).
  const stored = agent && agent.prompt === null ? storedPrompt(dir, config.strategyCopy) : null;
  const runConfig: RunConfig = {
    ...config,
    strategySource: stored ?? config.strategySource ?? null,
    runsRoot: path.dirname(dir),
    agent,
    presets: config.presets ?? [],
    memoryFrom: config.memoryFrom ?? null,
    recall: config.recall ?? DEFAULT_RECALL_OPTIONS,
  };
  return {
    dir,
    id: previous.id,
    config: runConfig,
    previous,
    checkpoint,
    strategyCopy: config.strategyCopy,
    memorySnapshot: hasMemorySnapshot(dir),
  };
}

/**
 * The inputs must be those the run started with: the same data files (sha256) and the same
 * strategy (sha256 of the copy the run stored). Checked after loading, before anything changes.
 */
export function checkResumeInputs(
  plan: ResumePlan,
  data: readonly DataFileInfo[],
  strategySha256: string,
): void {
  const was = plan.previous.data;
  for (const [k, d] of data.entries()) {
    const before = was[k];
    if (!before || before.sha256 !== d.sha256 || before.symbol !== d.symbol) {
      throw new UsageError(
        `Cannot resume ${plan.dir}: the data file ${d.file} (${d.symbol}) is not the one the run ` +
          `started with (sha256 ${short(d.sha256)}, was ${before ? short(before.sha256) : "absent"}). ` +
          "Restore the original file, or run the backtest again.",
      );
    }
  }
  if (was.length !== data.length) {
    throw new UsageError(
      `Cannot resume ${plan.dir}: it ran on ${was.length} data files, the config now loads ${data.length}.`,
    );
  }
  if (strategySha256 !== plan.strategyCopy.sha256) {
    const file = plan.config.strategySource ?? plan.config.strategyPath;
    throw new UsageError(
      `Cannot resume ${plan.dir}: the strategy ${file} changed since the run started (sha256 ` +
        `${short(strategySha256)}, the run's copy ${plan.strategyCopy.file} has ` +
        `${short(plan.strategyCopy.sha256)}). Restore it (the copy is in the run directory), or ` +
        "run the backtest again.",
    );
  }
}

/**
 * Makes the run directory what it was before its first bar, apart from the records kept for the
 * re-execution (result.json, config.json, the strategy copy, transcript.jsonl, checkpoint.json):
 * leftover temp files of a killed write are removed and the memory is rolled back to its state
 * at the start (its snapshot), the recall index dropped to be rebuilt. Returns whether a snapshot
 * was restored (false: the run was killed before taking one; memory is seeded anew).
 */
export function prepareResume(plan: ResumePlan): boolean {
  removeTempFiles(plan.dir);
  return restoreMemory(plan.dir);
}

function readJson(file: string, dir: string): unknown {
  let text: string;
  try {
    const st = fs.lstatSync(file);
    if (!st.isFile()) throw new Error("not a regular file");
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new UsageError(
      `Cannot resume ${dir}: ${file} is unreadable (${(err as Error).message}).`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(
      `Cannot resume ${dir}: ${file} is not valid JSON (damaged or edited); run the backtest again.`,
    );
  }
  if (!isJsonObject(value)) {
    throw damaged(file, "is not a JSON object");
  }
  return value;
}

/** A file the runner wrote holds what it never writes: named, not read as the run's state. */
function damaged(file: string, what: string): UsageError {
  return damagedRunFile(
    file,
    what,
    ", so it cannot be resumed. Run the backtest again.",
    UsageError,
  );
}

const short = (sha: string) => sha.slice(0, 12);

/** Complete lines of a file (absent: 0); a partial last line (a killed append) is not counted. */
function completeLines(file: string): number {
  const bytes = readFileNoFollow(file);
  if (bytes === null) return 0;
  let lines = 0;
  for (let k = bytes.indexOf(10); k !== -1; k = bytes.indexOf(10, k + 1)) lines += 1;
  return lines;
}
