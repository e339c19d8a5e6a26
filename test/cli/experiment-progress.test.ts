import { afterEach, describe, expect, it, vi } from "vitest";
import { experimentRenderer } from "../../src/cli/experiment-progress.js";
import type { ExperimentEvent } from "../../src/sweep/experiment/experiment-events.js";

function sink(columns = 100, rows = 30) {
  const writes: string[] = [];
  return {
    writes,
    columns,
    rows,
    write(chunk: string) {
      writes.push(chunk);
      return true;
    },
  } as unknown as NodeJS.WritableStream & { writes: string[]; columns: number; rows: number };
}

const START: ExperimentEvent = {
  type: "experiment_started",
  id: "exp-1",
  name: "exp",
  total: 2,
  done: 0,
  failed: 0,
  spentUsd: 0,
  tokens: 0,
  jobs: 2,
  budgetUsd: null,
};
const RUN: ExperimentEvent = {
  type: "run_started",
  run: { key: "c0-w0-r1", cell: 0, window: 0, repeat: 1, seed: 1 },
  cell: "memory=none",
  window: "2012-01-01:2012-06-30",
  resumed: false,
  remote: false,
};
const CALL_STARTED: ExperimentEvent = {
  type: "run_event",
  key: "c0-w0-r1",
  event: { type: "decision_started", time: "2012-01-03", bar: 1, kind: "decision" },
};
const FAILED: ExperimentEvent = {
  type: "run_finished",
  done: 1,
  total: 2,
  line: {
    key: "c0-w0-r1",
    cell: 0,
    window: 0,
    repeat: 1,
    seed: 1,
    runId: "",
    status: "failed",
    error: "DataError: bad",
    metrics: {
      returnPct: null,
      sharpe: null,
      maxDrawdownPct: null,
      trades: null,
      turnover: null,
      tokens: null,
      costUsd: null,
    },
    buyHoldReturnPct: null,
    calls: { network: 0, cache: 0, replay: 0 },
  },
};

afterEach(() => {
  vi.useRealTimers();
});

describe("an experiment's progress", () => {
  it("off a terminal: a line per start and end, and a status line every 5 s", () => {
    vi.useFakeTimers();
    let t = 0;
    const out = sink();
    const r = experimentRenderer(out, false, () => t);
    r.onEvent(START);
    r.onEvent(RUN);
    r.onEvent(CALL_STARTED);
    t = 5200;
    vi.advanceTimersByTime(1000);
    r.onEvent(FAILED);
    r.close();
    expect(out.writes.join("")).toBe(
      [
        "experiment exp-1: 2 runs, 2 at a time",
        "c0-w0-r1: started (seed 1)",
        "runs 0/2 done · 1 running · 1 waiting; calls in flight 1 (oldest 5.2 s) · calls 0 · tokens 0; spent —",
        "[1/2] c0-w0-r1: failed, return n/a% (DataError: bad)",
        "",
      ].join("\n"),
    );
  });

  it("through a queue: the workers set the pace; a run back without a line stops running", () => {
    const out = sink();
    const r = experimentRenderer(out, false, () => 0);
    r.onEvent({ ...START, jobs: null, budgetUsd: 0.5 });
    r.onEvent(RUN);
    expect(r.state.running).toHaveLength(1);
    // Back without a line (interrupted on its worker): no longer running, and said so.
    r.onEvent({ type: "run_left", key: "c0-w0-r1", reason: "interrupted: a resume continues it" });
    expect(r.state.running).toHaveLength(0);
    r.close();
    expect(out.writes.join("")).toBe(
      [
        "experiment exp-1: 2 runs, on the queue's workers, --budget-usd 0.5",
        "c0-w0-r1: started (seed 1)",
        "c0-w0-r1: interrupted: a resume continues it",
        "",
      ].join("\n"),
    );
  });

  it("on a terminal: one frame drawn again in place, a failed run's line above it", () => {
    vi.useFakeTimers();
    let t = 0;
    const out = sink(80, 30);
    const r = experimentRenderer(out, true, () => t);
    r.onEvent(START);
    r.onEvent(RUN);
    r.onEvent(CALL_STARTED);
    t = 2000;
    vi.advanceTimersByTime(250);
    const frames = out.writes.slice();
    // The first frame (4 lines: no run yet), then the same place again: up 3 lines, cleared.
    expect(frames[0]?.split("\n")).toHaveLength(4);
    expect(frames[1]?.startsWith("\r\u001B[3A\u001B[J")).toBe(true);
    expect(frames[1]).toContain("calls in flight 1 (oldest 2.0 s)");
    expect(frames[1]).toMatch(
      / {2}c0-w0-r1 {2}memory=none {2}starting · call 2\.0 s {2}2012-01-01:2012-06-30 {2}repeat 1$/,
    );
    r.onEvent(FAILED);
    // The frame (5 lines) is erased, the line written, and the frame drawn again below it.
    const after = out.writes.slice(frames.length);
    expect(after.slice(0, 2)).toEqual([
      "\r\u001B[4A\u001B[J",
      "[1/2] c0-w0-r1: failed, return n/a% (DataError: bad)\n",
    ]);
    expect(after[2]).toMatch(/^Experiment exp · exp-1\n/);
    r.notice("Interrupted by SIGINT");
    expect(out.writes.at(-1)).toMatch(/runs 1\/2 done · 0 running · 1 waiting · 1 failed/);
    expect(out.writes.at(-1)).toMatch(/Interrupted by SIGINT$/);
    r.close();
    expect(out.writes.at(-1)).toBe("\n");
    // Less the erasing prefix of a frame drawn again (\r, cursor up, clear down).
    for (const w of out.writes)
      for (const line of (w.startsWith("\r") ? w.slice(w.indexOf("J") + 1) : w).split("\n"))
        expect(line.length).toBeLessThan(80);
  });
});
