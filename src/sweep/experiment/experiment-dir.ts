import type { ExperimentMetric } from "../../metrics/experiment/metrics.js";
import { readJsonFile, readJsonLines } from "../../rundir/run-files.js";
import type { RunConfig } from "../../runner/run-config.js";
import { appendLines, truncatePartialLastLine } from "../../util/append-lines.js";
import { readFileNoFollow } from "../../util/no-follow.js";
import { sweepFile } from "../sweep-layout.js";
import type { ExperimentEstimate } from "./experiment-estimate.js";
import type { CellSettings, ExperimentAxis, ExperimentWindow } from "./experiment-plan.js";

/** config.json's `kind` of an LLM experiment (a code sweep's is `sweep`). */
export const EXPERIMENT_KIND = "experiment";

/** Beside results.jsonl: a line when a run starts, naming its run directory (resume finds the
 * runs that were in flight by it). */
export const EXPERIMENT_STARTED_FILE = "started.jsonl";

/** One cell of an experiment. */
export interface ExperimentCell {
  settings: CellSettings;
  run: RunConfig;
  /** `--baseline`'s code strategy: deterministic, so run once on each window (repeat 1), and
   * not a trial among the cells (absent: an LLM cell). */
  code?: boolean;
}

/** config.json of an experiment: everything a resume or a replay needs to make the same runs. */
export interface ExperimentConfig {
  kind: typeof EXPERIMENT_KIND;
  id: string;
  name: string;
  createdAt: string;
  axes: ExperimentAxis[];
  /** Each cell's settings and the run config its runs start from (window and seed set per run). */
  cells: ExperimentCell[];
  windows: ExperimentWindow[];
  repeats: number;
  /** Repeat r sends seed + r - 1. */
  seed: number;
  /** Runs in flight at once. */
  jobs: number;
  /** `--budget-usd`, or null (absent in an experiment made before it: null). */
  budgetUsd?: number | null;
  /** The cost estimate shown before it started (absent: none was made, as for a replay). */
  estimate?: ExperimentEstimate;
  /** The experiment this one replays from its runs' transcripts, or null. */
  replayOf: string | null;
  /** `--queue`'s Redis URL, its password left out (absent: the runs ran on this machine). */
  queue?: string;
  total: number;
}

/** One finished run of the experiment (results.jsonl). */
export interface ExperimentResultLine {
  key: string;
  cell: number;
  window: number;
  repeat: number;
  seed: number;
  runId: string;
  status: string;
  error: string | null;
  metrics: Record<ExperimentMetric, number | null>;
  /** Buy-and-hold's return on the run's bars (the free baseline of its window). */
  buyHoldReturnPct: number | null;
  calls: { network: number; cache: number; replay: number };
}

/** A run that started (started.jsonl). `attempt` counts the starts of its key from 1. */
export interface ExperimentStartLine {
  key: string;
  runId: string;
  dir: string;
  attempt: number;
}

export function readExperimentConfig(dir: string): ExperimentConfig | null {
  let value: unknown;
  try {
    value = readJsonFile(sweepFile(dir, "config"));
  } catch {
    return null;
  }
  const v = value as Partial<ExperimentConfig> | null;
  return v !== null && typeof v === "object" && v.kind === EXPERIMENT_KIND
    ? (v as ExperimentConfig)
    : null;
}

/** results.jsonl's lines (a line cut by a kill is dropped first). */
export function readExperimentResults(dir: string): ExperimentResultLine[] {
  const file = sweepFile(dir, "results");
  truncatePartialLastLine(file);
  return (readJsonLines(file) ?? []) as unknown as ExperimentResultLine[];
}

export function readExperimentStarts(file: string): ExperimentStartLine[] {
  truncatePartialLastLine(file);
  return (readJsonLines(file) ?? []) as unknown as ExperimentStartLine[];
}

export function appendJsonLine(file: string, value: unknown): void {
  appendLines(file, `${JSON.stringify(value)}\n`);
}

/**
 * results.jsonl's lines as they are now, without changing the file (list and show read a
 * running experiment's): a line cut by a kill, or being written, is left out; the last line of
 * a key wins. A link is not followed.
 */
export function peekExperimentResults(dir: string): ExperimentResultLine[] {
  const bytes = readFileNoFollow(sweepFile(dir, "results"));
  if (bytes === null) return [];
  const byKey = new Map<string, ExperimentResultLine>();
  for (const line of bytes.toString("utf8").split("\n")) {
    if (!line.endsWith("}")) continue;
    try {
      const l = JSON.parse(line) as ExperimentResultLine;
      if (typeof l.key === "string") byKey.set(l.key, l);
    } catch {
      // A damaged line says nothing of a run.
    }
  }
  return [...byKey.values()];
}
