import { describe, expect, it } from "vitest";
import type { RunResult } from "../../src/rundir/run-result.js";
import type { RunEvent } from "../../src/runner/run-events.js";
import type { ExperimentResultLine } from "../../src/sweep/experiment/experiment-dir.js";
import type { ExperimentEvent } from "../../src/sweep/experiment/experiment-events.js";
import {
  callsInFlight,
  foldExperimentEvent,
  initialExperimentState,
  spentSoFar,
  tokensSoFar,
  waitingRuns,
} from "../../src/ui/experiment-state.js";
import { experimentFrame } from "../../src/ui/experiment-view.js";

const started = (over: Partial<Extract<ExperimentEvent, { type: "experiment_started" }>> = {}) =>
  ({
    type: "experiment_started",
    id: "20261127-x",
    name: "exp",
    total: 6,
    done: 0,
    failed: 0,
    spentUsd: 0,
    tokens: 0,
    jobs: 2,
    budgetUsd: 1,
    ...over,
  }) as const;

const runStarted = (key: string, repeat = 1): ExperimentEvent => ({
  type: "run_started",
  run: { key, cell: 0, window: 0, repeat, seed: repeat },
  cell: "memory=files",
  window: "2012-01-01:2012-06-30",
  resumed: false,
  remote: false,
});

const inRun = (key: string, event: RunEvent): ExperimentEvent => ({
  type: "run_event",
  key,
  event,
});

const decision = (bar: number): RunEvent => ({
  type: "decision_started",
  time: "2012-01-03",
  bar,
  kind: "decision",
});
const call = (prompt: number, costUsd: number | null): RunEvent => ({
  type: "llm_call",
  model: "m",
  source: "network",
  tokens: { prompt, completion: 10, cached: 0 },
  costUsd,
  latencyMs: 5,
  attempts: 1,
  error: null,
});
const decided = (bar: number): RunEvent => ({
  type: "decision_finished",
  time: "2012-01-03",
  bar,
  kind: "decision",
  rationale: null,
  toolCalls: [],
  calls: 1,
  tokens: { prompt: 0, completion: 0, cached: 0 },
  latencyMs: 5,
  error: null,
  failed: false,
});

function finished(key: string, costUsd: number | null, tokens: number, done: number) {
  const line: ExperimentResultLine = {
    key,
    cell: 0,
    window: 0,
    repeat: 1,
    seed: 1,
    runId: `run-${key}`,
    status: "completed",
    error: null,
    metrics: {
      returnPct: 1,
      sharpe: 1,
      maxDrawdownPct: -1,
      trades: 1,
      turnover: null,
      tokens,
      costUsd,
    },
    buyHoldReturnPct: 0,
    calls: { network: 2, cache: 0, replay: 0 },
  };
  return { type: "run_finished", line, done, total: 6 } as const;
}

describe("the experiment view's state", () => {
  it("counts runs done, running and waiting, and calls in flight with the oldest's start", () => {
    const s = initialExperimentState();
    foldExperimentEvent(s, started(), 0);
    foldExperimentEvent(s, runStarted("c0-w0-r1"), 0);
    foldExperimentEvent(s, runStarted("c0-w0-r2", 2), 0);
    expect([s.done, s.running.length, waitingRuns(s)]).toEqual([0, 2, 4]);
    expect(callsInFlight(s)).toEqual({ count: 0, oldestMs: null });
    foldExperimentEvent(s, inRun("c0-w0-r1", decision(3)), 100);
    foldExperimentEvent(s, inRun("c0-w0-r2", decision(3)), 250);
    expect(callsInFlight(s)).toEqual({ count: 2, oldestMs: 100 });
    // The first run's call ends; its next call in the decision starts then.
    foldExperimentEvent(s, inRun("c0-w0-r1", call(100, 0.01)), 400);
    expect(callsInFlight(s)).toEqual({ count: 2, oldestMs: 250 });
    foldExperimentEvent(s, inRun("c0-w0-r1", decided(3)), 410);
    expect(callsInFlight(s)).toEqual({ count: 1, oldestMs: 250 });
    expect(s.calls).toBe(1);
    expect(tokensSoFar(s)).toBe(110);
    expect(spentSoFar(s)).toBeCloseTo(0.01, 12);
  });

  it("counts a run's calls once: from its events, or from its line when it sent none (a queue)", () => {
    const s = initialExperimentState();
    foldExperimentEvent(s, started(), 0);
    foldExperimentEvent(s, runStarted("local"), 0);
    foldExperimentEvent(s, inRun("local", decision(1)), 0);
    foldExperimentEvent(s, inRun("local", call(100, 0.01)), 10);
    foldExperimentEvent(s, inRun("local", call(100, 0.01)), 20);
    foldExperimentEvent(s, finished("local", 0.02, 200, 1), 30);
    expect(s.calls).toBe(2);
    // Run on a worker: started, then its line, with nothing between.
    foldExperimentEvent(s, runStarted("remote"), 40);
    foldExperimentEvent(s, finished("remote", 0.02, 200, 2), 50);
    expect(s.calls).toBe(4);
  });

  it("keeps a call in flight through its retries: the oldest's wait includes a 429's", () => {
    const s = initialExperimentState();
    foldExperimentEvent(s, started(), 0);
    foldExperimentEvent(s, runStarted("a"), 0);
    foldExperimentEvent(s, inRun("a", decision(1)), 100);
    const retry: RunEvent = {
      type: "retry",
      model: "m",
      error: "rate_limit",
      message: "429",
      attempt: 1,
      delayMs: 30_000,
      waitFrom: "server",
    };
    foldExperimentEvent(s, inRun("a", retry), 200);
    expect(callsInFlight(s)).toEqual({ count: 1, oldestMs: 100 });
    expect(s.retries).toBe(1);
    expect(experimentFrame(s, 30_100, 30_100, 100)[2]).toBe(
      "calls in flight 1 (oldest 30 s) · calls 0 · retries 1 · tokens 0",
    );
  });

  it("bills a finished run as results.jsonl does, replacing its running tally", () => {
    const s = initialExperimentState();
    foldExperimentEvent(s, started({ done: 1, spentUsd: 0.5, tokens: 1000 }), 0);
    foldExperimentEvent(s, runStarted("c0-w0-r2"), 0);
    foldExperimentEvent(s, inRun("c0-w0-r2", decision(1)), 0);
    foldExperimentEvent(s, inRun("c0-w0-r2", call(90, 0.02)), 0);
    expect(spentSoFar(s)).toBeCloseTo(0.52, 12);
    expect(tokensSoFar(s)).toBe(1100);
    foldExperimentEvent(s, finished("c0-w0-r2", 0.03, 150, 2), 0);
    expect([s.done, s.running.length, waitingRuns(s)]).toEqual([2, 0, 4]);
    expect(spentSoFar(s)).toBeCloseTo(0.53, 12);
    expect(tokensSoFar(s)).toBe(1150);
  });

  it("makes the spend unknown once a price is, from a call or a finished run", () => {
    const s = initialExperimentState();
    foldExperimentEvent(s, started(), 0);
    foldExperimentEvent(s, runStarted("a"), 0);
    foldExperimentEvent(s, inRun("a", decision(1)), 0);
    foldExperimentEvent(s, inRun("a", call(10, null)), 0);
    expect(spentSoFar(s)).toBeNull();
    const t = initialExperimentState();
    foldExperimentEvent(t, started({ spentUsd: null }), 0);
    expect(spentSoFar(t)).toBeNull();
    const u = initialExperimentState();
    foldExperimentEvent(u, started(), 0);
    foldExperimentEvent(u, runStarted("a"), 0);
    foldExperimentEvent(u, finished("a", null, 10, 1), 0);
    expect(spentSoFar(u)).toBeNull();
  });

  it("drops an interrupted run (it gets no results line) and counts a failed one", () => {
    const s = initialExperimentState();
    foldExperimentEvent(s, started(), 0);
    foldExperimentEvent(s, runStarted("a"), 0);
    foldExperimentEvent(s, runStarted("b"), 0);
    const interrupted = { status: "interrupted" } as RunResult;
    foldExperimentEvent(s, inRun("a", { type: "run_finished", result: interrupted }), 0);
    expect(s.running.map((r) => r.key)).toEqual(["b"]);
    const failed = finished("b", null, 0, 1);
    foldExperimentEvent(s, { ...failed, line: { ...failed.line, status: "failed" } }, 0);
    expect([s.done, s.failed, s.running.length, waitingRuns(s)]).toEqual([1, 1, 0, 5]);
  });
});

describe("the experiment view's frame", () => {
  const busy = () => {
    const s = initialExperimentState();
    foldExperimentEvent(s, started({ total: 24, jobs: 4 }), 0);
    for (let k = 1; k <= 4; k++) {
      foldExperimentEvent(s, runStarted(`c${k}-w0-r1`), 0);
      foldExperimentEvent(s, inRun(`c${k}-w0-r1`, decision(5)), k * 1000);
    }
    foldExperimentEvent(s, inRun("c1-w0-r1", call(1000, 0.0123)), 4500);
    return s;
  };

  it("says runs, calls in flight with the oldest's wait, tokens and spend against the budget", () => {
    const lines = experimentFrame(busy(), 7000, 7000, 120);
    expect(lines[1]).toMatch(/runs 0\/24 done · 4 running · 20 waiting · 0:07$/);
    // c1's next call started at 4.5 s: the oldest is c2's, from 2 s (5 s ago).
    expect(lines[2]).toBe("calls in flight 4 (oldest 5.0 s) · calls 1 · tokens 1,010");
    expect(lines[3]).toBe("spent $0.0123 of budget $1");
    expect(lines.filter((l) => /^ {2}c\d-w0-r1 {2}memory=files/.test(l))).toHaveLength(4);
  });

  it("says a run on a queue's worker is there, not starting (its bars are not told)", () => {
    const s = initialExperimentState();
    foldExperimentEvent(s, started(), 0);
    foldExperimentEvent(s, { ...runStarted("c0-w0-r1"), remote: true } as ExperimentEvent, 0);
    expect(experimentFrame(s, 0, 0, 120)[4]).toMatch(/^ {2}c0-w0-r1 {2}\S+ {2}on a worker {2}/);
  });

  it("fits 80 and 120 columns and the terminal's rows, never $0.0000 before a price is known", () => {
    for (const columns of [80, 120]) {
      const lines = experimentFrame(busy(), 7000, 7000, columns, 7);
      expect(lines.length).toBeLessThanOrEqual(6);
      // The figures of a run come before its window, which a narrow terminal cuts first.
      expect(lines[4]).toMatch(
        /^ {2}c1-w0-r1 {2}memory=files {2}starting · call 2\.5 s {2}2012-01-01/,
      );
      expect(lines.at(-1)).toMatch(/^ {2}\+\d+ more running$/);
      for (const l of lines) expect(l.length).toBeLessThan(columns);
    }
    const fresh = initialExperimentState();
    foldExperimentEvent(fresh, started({ budgetUsd: null }), 0);
    expect(experimentFrame(fresh, 0, 0, 100).slice(2)).toEqual([
      "calls in flight 0 · calls 0 · tokens 0",
      "spent —",
    ]);
  });
});
