import type { ExperimentEvent } from "../sweep/experiment/experiment-events.js";
import { assertNever } from "../util/assert-never.js";

/** A run under way, as the experiment's view shows it. */
export interface ExperimentRunView {
  key: string;
  cell: string;
  window: string;
  repeat: number;
  resumed: boolean;
  /** On a queue's worker: no bars or calls are told until its line. */
  remote: boolean;
  /** Bars simulated so far and in all (0 of 0 until the run has started its data). */
  barsDone: number;
  barsTotal: number;
  /** Inside a decision: a model call is under way (or about to be). */
  inDecision: boolean;
  /** When the call under way started, on the renderer's clock (ms); null when none is. */
  callStartedMs: number | null;
  calls: number;
  tokens: number;
  /** The network calls' cost so far; `costUnknown` once one call's price is unknown. */
  costUsd: number;
  costUnknown: boolean;
}

/**
 * What the experiment's view shows, folded from its events alone. Spend and tokens are those of
 * the finished runs (as results.jsonl bills them) plus the running runs' calls so far: at the
 * end they are summary.json's.
 */
export interface ExperimentLiveState {
  id: string;
  name: string;
  total: number;
  /** Runs finished (any status), and of them those that did not complete. */
  done: number;
  failed: number;
  jobs: number | null;
  budgetUsd: number | null;
  /** The runs under way, in the order they started. */
  running: ExperimentRunView[];
  /** What the finished runs were billed; `billedUnknown`: some price was unknown. */
  billedUsd: number;
  billedUnknown: boolean;
  billedTokens: number;
  /** Model calls answered (finished runs' and running runs' alike), and retries waited for. */
  calls: number;
  retries: number;
  /** The latest warnings, oldest first (at most EXPERIMENT_WARNINGS_KEPT). */
  warnings: string[];
  /** How it ended (null while it runs), and why runs were left unstarted for the budget. */
  status: string | null;
  budgetStop: string | null;
}

export const EXPERIMENT_WARNINGS_KEPT = 2;

export function initialExperimentState(): ExperimentLiveState {
  return {
    id: "",
    name: "",
    total: 0,
    done: 0,
    failed: 0,
    jobs: 1,
    budgetUsd: null,
    running: [],
    billedUsd: 0,
    billedUnknown: false,
    billedTokens: 0,
    calls: 0,
    retries: 0,
    warnings: [],
    status: null,
    budgetStop: null,
  };
}

/** Runs neither finished nor under way. */
export const waitingRuns = (s: ExperimentLiveState) =>
  Math.max(0, s.total - s.done - s.running.length);

/** The spend so far: null when a price is unknown (never shown as $0). */
export function spentSoFar(s: ExperimentLiveState): number | null {
  if (s.billedUnknown || s.running.some((r) => r.costUnknown)) return null;
  return s.running.reduce((sum, r) => sum + r.costUsd, s.billedUsd);
}

export const tokensSoFar = (s: ExperimentLiveState) =>
  s.running.reduce((sum, r) => sum + r.tokens, s.billedTokens);

/** Model calls under way, and the start of the oldest (null: none). */
export function callsInFlight(s: ExperimentLiveState): { count: number; oldestMs: number | null } {
  let count = 0;
  let oldestMs: number | null = null;
  for (const r of s.running) {
    if (r.callStartedMs === null) continue;
    count++;
    if (oldestMs === null || r.callStartedMs < oldestMs) oldestMs = r.callStartedMs;
  }
  return { count, oldestMs };
}

const keepLast = (list: readonly string[], item: string, n: number) => [...list, item].slice(-n);

/**
 * Folds `e` into `s` in place; `nowMs` is the renderer's clock, which dates a model call's start
 * (a decision's first call starts with it, each next one as the previous one ends).
 */
export function foldExperimentEvent(s: ExperimentLiveState, e: ExperimentEvent, nowMs: number) {
  switch (e.type) {
    case "experiment_started":
      s.id = e.id;
      s.name = e.name;
      s.total = e.total;
      s.done = e.done;
      s.failed = e.failed;
      s.jobs = e.jobs;
      s.budgetUsd = e.budgetUsd;
      s.billedUsd = e.spentUsd ?? 0;
      s.billedUnknown = e.spentUsd === null;
      s.billedTokens = e.tokens;
      return;
    case "run_started":
      s.running = s.running.filter((r) => r.key !== e.run.key);
      s.running.push({
        key: e.run.key,
        cell: e.cell,
        window: e.window,
        repeat: e.run.repeat,
        resumed: e.resumed,
        remote: e.remote,
        barsDone: 0,
        barsTotal: 0,
        inDecision: false,
        callStartedMs: null,
        calls: 0,
        tokens: 0,
        costUsd: 0,
        costUnknown: false,
      });
      return;
    case "run_event":
      foldRunEvent(s, e.key, e.event, nowMs);
      return;
    case "run_finished": {
      // A run on a queue's worker sends no events of its own: its calls arrive with its line.
      const seen = s.running.find((r) => r.key === e.line.key)?.calls ?? 0;
      const { network, cache, replay } = e.line.calls;
      s.calls += Math.max(0, network + cache + replay - seen);
      s.running = s.running.filter((r) => r.key !== e.line.key);
      s.done = e.done;
      if (e.line.status !== "completed") s.failed++;
      // As results.jsonl bills it (and summary.json's spentUsd adds it up).
      if (e.line.calls.network > 0) {
        if (e.line.metrics.costUsd === null) s.billedUnknown = true;
        else s.billedUsd += e.line.metrics.costUsd;
      }
      s.billedTokens += e.line.metrics.tokens ?? 0;
      return;
    }
    case "run_left":
      s.running = s.running.filter((r) => r.key !== e.key);
      return;
    case "warning":
      s.warnings = keepLast(s.warnings, `${e.key}: ${e.message}`, EXPERIMENT_WARNINGS_KEPT);
      return;
    case "experiment_finished":
      s.status = e.status;
      s.budgetStop = e.budgetStop;
      for (const r of s.running) r.callStartedMs = null;
      return;
    default:
      assertNever(e, "experiment event");
  }
}

function foldRunEvent(
  s: ExperimentLiveState,
  key: string,
  e: Extract<ExperimentEvent, { type: "run_event" }>["event"],
  nowMs: number,
): void {
  const r = s.running.find((x) => x.key === key);
  if (r === undefined) return;
  switch (e.type) {
    case "run_started":
      r.barsTotal = e.bars;
      r.barsDone = e.resumedFrom?.done ?? 0;
      return;
    case "progress":
      r.barsDone = e.done;
      r.barsTotal = e.total;
      return;
    case "decision_started":
      r.inDecision = true;
      r.callStartedMs = nowMs;
      return;
    case "llm_call":
      s.calls++;
      r.calls++;
      r.tokens += e.tokens.prompt + e.tokens.completion;
      if (e.costUsd === null) r.costUnknown = true;
      else r.costUsd += e.costUsd;
      // The decision's next call, if it makes one, starts now.
      r.callStartedMs = r.inDecision ? nowMs : null;
      return;
    case "decision_finished":
      r.inDecision = false;
      r.callStartedMs = null;
      return;
    case "retry":
      s.retries++;
      return;
    case "run_finished":
      // An interrupted run gets no results.jsonl line: it is no longer under way.
      if (e.result.status === "interrupted") s.running = s.running.filter((x) => x.key !== key);
      else {
        r.inDecision = false;
        r.callStartedMs = null;
      }
      return;
    case "loading":
    case "order_accepted":
    case "order_rejected":
    case "order_cancelled":
    case "fill":
    case "trade_closed":
    case "memory_write":
    case "recall":
    // A run's warnings come as the experiment's own warning events.
    case "warning":
      return;
    default:
      assertNever(e, "run event");
  }
}
