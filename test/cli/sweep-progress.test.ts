import { describe, expect, it } from "vitest";
import { progressLine, sweepRenderer } from "../../src/cli/sweep-progress.js";
import type { SweepEvent } from "../../src/sweep/run-sweep.js";

const outcome = {
  index: 3,
  settings: { fast: 10, slow: 20 },
  status: "completed" as const,
  error: null,
  metrics: null,
  nullReasons: {},
  trades: { closed: 0, openAtEnd: 0, dataEnded: 0 },
  orders: {
    placed: 0,
    filled: 0,
    cancelled: 0,
    expired: 0,
    working: 0,
    rejected: 0,
    rejectedBy: {},
  },
} as unknown as Extract<SweepEvent, { type: "combination" }>["outcome"];

const step = (done: number, total = 175): Extract<SweepEvent, { type: "combination" }> => ({
  type: "combination",
  outcome,
  done,
  total,
  failed: 1,
  best: { index: 3, settings: { fast: 10, slow: 20 }, value: 0.60074 },
  perSecond: 812.4,
  etaMs: ((total - done) / 812.4) * 1000,
});

function sink(columns?: number) {
  const chunks: string[] = [];
  return {
    chunks,
    stream: {
      columns,
      write: (s: string) => chunks.push(s) > 0,
    } as unknown as NodeJS.WritableStream & { columns?: number },
  };
}

describe("a sweep's progress", () => {
  it("says done/total, combinations/s, the best so far with its settings and the ETA", () => {
    expect(progressLine(step(87), "sharpe")).toBe(
      "87/175 (49.7%, 1 failed)  812 combinations/s  best sharpe 0.6007 (fast=10 slow=20)  ETA 0.1 s",
    );
  });

  it("prints plain lines at start, every 5 s and at the end when not on a terminal", () => {
    let t = 0;
    const { chunks, stream } = sink();
    const r = sweepRenderer(stream, false, () => t);
    r.onEvent({
      type: "sweep_started",
      id: "s1",
      dir: "/d",
      name: "n",
      total: 175,
      done: 0,
      jobs: 2,
      objective: "maximize sharpe",
    });
    r.onEvent(step(10));
    t = 5001;
    r.onEvent(step(90));
    t = 5002;
    r.onEvent(step(175));
    expect(chunks).toEqual([
      "sweep s1: 175 combinations, 2 jobs, maximize sharpe\n",
      `${progressLine(step(90), "sharpe")}\n`,
      `${progressLine(step(175), "sharpe")}\n`,
    ]);
    expect(chunks.join("").includes("\u001b")).toBe(false);
  });

  it("draws one line in place on a terminal, cut to its width, and clears it for other lines", () => {
    let t = 0;
    const { chunks, stream } = sink(50);
    const r = sweepRenderer(stream, true, () => t);
    r.onEvent({
      type: "sweep_started",
      id: "s1",
      dir: "/d",
      name: "n",
      total: 175,
      done: 0,
      jobs: 2,
      objective: "maximize sharpe",
    });
    t = 200;
    r.onEvent(step(10));
    t = 250;
    r.onEvent(step(11));
    r.onEvent({ type: "warning", message: "careful" });
    const drawn = chunks.filter((c) => c.startsWith("\r\x1b[2K") && c.length > 5);
    expect(drawn).toHaveLength(1);
    expect(drawn[0]?.length).toBeLessThanOrEqual("\r\x1b[2K".length + 49);
    expect(chunks.at(-2)).toBe("\r\x1b[2K");
    expect(chunks.at(-1)).toBe("warning: careful\n");
  });
});
