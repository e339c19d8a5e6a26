import type { RunEvent } from "../../runner/run-events.js";
import type { ExperimentResultLine } from "./experiment-dir.js";
import type { PlannedRun } from "./experiment-plan.js";

/**
 * What an experiment reports as it goes. Renderers (plain lines, the live view) consume these
 * alone: the runs' own events come through `run_event`, tagged with the run's key, so the model
 * calls in flight are counted from the runs' decision and call events.
 */
export type ExperimentEvent =
  | ExperimentStartedEvent
  | ExperimentRunStartedEvent
  | ExperimentRunEvent
  | ExperimentRunFinishedEvent
  | ExperimentRunLeftEvent
  | ExperimentWarningEvent
  | ExperimentFinishedEvent;

/** Once, before the first run: what is done already (a resume) and what is left. */
export interface ExperimentStartedEvent {
  type: "experiment_started";
  id: string;
  name: string;
  total: number;
  /** Runs finished before this process (a resume), and of them those that did not complete. */
  done: number;
  failed: number;
  /** What those runs were billed (null: a price is unknown) and their tokens. */
  spentUsd: number | null;
  tokens: number;
  /** Runs in flight at most (null: a queue's workers set the pace). */
  jobs: number | null;
  budgetUsd: number | null;
}

/** A run begins (`resumed`: from its own checkpoint). Labels as the summary writes them. */
export interface ExperimentRunStartedEvent {
  type: "run_started";
  run: PlannedRun;
  cell: string;
  window: string;
  resumed: boolean;
  /** Run by a queue's worker: none of its own events come here, only its line. */
  remote: boolean;
}

/** One event of a running run. */
export interface ExperimentRunEvent {
  type: "run_event";
  key: string;
  event: RunEvent;
}

/** A run ended: its results.jsonl line; `done` of `total` have now. */
export interface ExperimentRunFinishedEvent {
  type: "run_finished";
  line: ExperimentResultLine;
  done: number;
  total: number;
}

/** A run sent to a queue came back without a line: interrupted (a resume continues it), or
 * refused under --budget-usd before it started (`reason`). */
export interface ExperimentRunLeftEvent {
  type: "run_left";
  key: string;
  reason: string;
}

export interface ExperimentWarningEvent {
  type: "warning";
  key: string;
  message: string;
}

/** The experiment stopped starting runs and wrote its summary. */
export interface ExperimentFinishedEvent {
  type: "experiment_finished";
  status: "completed" | "interrupted";
  /** Why runs were left unstarted under --budget-usd, or null. */
  budgetStop: string | null;
}
