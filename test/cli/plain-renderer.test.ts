import { describe, expect, it } from "vitest";
import { chooseRenderer, plainRenderer } from "../../src/cli/plain-renderer.js";
import type { RunResult } from "../../src/rundir/run-result.js";
import type { ProgressEvent, RunEvent } from "../../src/runner/run-events.js";

function sink() {
  const chunks: string[] = [];
  return {
    stream: { write: (t: string) => chunks.push(t) > 0 },
    lines: () => chunks.join("").split("\n").filter(Boolean),
  };
}

const progress = (done: number, equity: number, bench: number, peak: number): ProgressEvent => ({
  type: "progress",
  done,
  total: 1000,
  time: `2020-01-${String(1 + (done % 28)).padStart(2, "0")}`,
  bar: done - 1,
  equity,
  cash: 0,
  peakEquity: peak,
  drawdownPct: (equity / peak - 1) * 100,
  maxDrawdownPct: (equity / peak - 1) * 100,
  returnPct: (equity / 10000 - 1) * 100,
  benchmarkEquity: bench,
  benchmarkReturnPct: (bench / 10000 - 1) * 100,
  positions: [],
  elapsedMs: 0,
});

describe("plain renderer", () => {
  it("a start line, a line every 5 s of its clock (not per 10%), warnings and failures at once, an end line", () => {
    let now = 0;
    const out = sink();
    const render = plainRenderer(out.stream as unknown as NodeJS.WritableStream, {
      now: () => now,
    });
    const events: [number, RunEvent][] = [
      [
        0,
        {
          type: "run_started",
          id: "r1",
          dir: "/x",
          strategy: "sma",
          kind: "code",
          symbols: ["GOOG"],
          bars: 1000,
          start: "2020-01-01",
          end: "2023-12-29",
          initialCash: 10000,
          resumedFrom: null,
        },
      ],
      [1000, progress(100, 10500, 10200, 10600)],
      [4999, progress(300, 11000, 10400, 11000)],
      [5000, progress(400, 11500, 10600, 11500)],
      [6000, { type: "warning", message: "Symbols cover different ranges" }],
      [
        7000,
        {
          type: "decision_finished",
          time: "2020-03-02",
          bar: 41,
          kind: "decision",
          rationale: null,
          toolCalls: [],
          calls: 1,
          tokens: { prompt: 1, completion: 0, cached: 0 },
          latencyMs: 1,
          error: { type: "empty_reply", message: "the model answered nothing" },
          failed: true,
        },
      ],
      [9999, progress(500, 12000, 10800, 12000)],
      [10000, progress(600, 11400, 11000, 12000)],
      [
        10500,
        {
          type: "run_finished",
          result: {
            id: "r1",
            status: "completed",
            timings: { totalMs: 10500 },
            metrics: { returnPct: 14, buyHoldReturnPct: 10 },
          } as unknown as RunResult,
        },
      ],
    ];
    for (const [t, e] of events) {
      now = t;
      render(e);
    }
    expect(out.lines()).toEqual([
      "run r1: sma on GOOG, 1000 bars (2020-01-01 → 2023-12-29)",
      " 40%  2020-01-09  equity 11500.00  return +15.00%  buy & hold +6.00%  drawdown 0.00%",
      "warning: Symbols cover different ranges",
      "failed decision at 2020-03-02: empty_reply: the model answered nothing",
      " 60%  2020-01-13  equity 11400.00  return +14.00%  buy & hold +10.00%  drawdown -5.00%",
      "run r1: completed in 10.50 s, return +14.00% (buy & hold +10.00%)",
    ]);
  });

  it("chooseRenderer: nothing with -q; the plain renderer otherwise, --json included", () => {
    const out = sink();
    const stream = out.stream as unknown as NodeJS.WritableStream;
    chooseRenderer({ quiet: true, json: false, ui: true, stream })({
      type: "warning",
      message: "w",
    });
    expect(out.lines()).toEqual([]);
    chooseRenderer({ quiet: false, json: true, ui: true, stream })({
      type: "warning",
      message: "w",
    });
    expect(out.lines()).toEqual(["warning: w"]);
  });
});

describe("plain renderer: retry waits", () => {
  it("prints each wait the moment it starts, with its length and where it comes from", () => {
    const out = sink();
    const render = plainRenderer(out.stream as unknown as NodeJS.WritableStream, { now: () => 0 });
    const retry = (delayMs: number, waitFrom: "server" | "backoff"): RunEvent => ({
      type: "retry",
      model: "gpt-4o-mini",
      error: waitFrom === "server" ? "rate_limit" : "server_error",
      message: "…",
      attempt: 1,
      delayMs,
      waitFrom,
    });
    render(retry(3_600_000, "server"));
    render(retry(1234, "backoff"));
    expect(out.lines()).toEqual([
      "waiting 3,600 s (as the server asked) to retry gpt-4o-mini after rate_limit on attempt 1",
      "waiting 1.2 s (backoff) to retry gpt-4o-mini after server_error on attempt 1",
    ]);
  });
});

describe("plain renderer while the data loads", () => {
  it("says how far a long load is every 5 s, not at every event", () => {
    let now = 0;
    const out = sink();
    const render = plainRenderer(out.stream as unknown as NodeJS.WritableStream, {
      now: () => now,
    });
    for (const t of [100, 2000, 5100, 6000, 10_300]) {
      now = t;
      render({ type: "loading", bytesRead: t * 1000, bytesTotal: 20_000_000, elapsedMs: t });
    }
    expect(out.lines()).toEqual([
      "loading data: 5.1 of 20.0 MB (25%)",
      "loading data: 10.3 of 20.0 MB (51%)",
    ]);
  });
});
