import { describe, expect, it } from "vitest";
import type { Fill } from "../../src/engine/types.js";
import type { RunEvent } from "../../src/runner/run-events.js";
import type { RunResult } from "../../src/runner/run-result.js";
import { initialLiveState, liveState, WARNINGS_KEPT } from "../../src/ui/live-state.js";

const fill = (symbol: string, side: "buy" | "sell", qty: number): RunEvent => ({
  type: "fill",
  time: "2020-01-02",
  fill: { symbol, side, qty, price: 10 } as Fill,
});

const fold = (events: RunEvent[]) => events.reduce(liveState, initialLiveState());

describe("liveState", () => {
  it("takes the run's name, symbols and bar count from run_started", () => {
    const s = fold([
      { type: "run_started", id: "r1", dir: "/x", strategy: "sma", symbols: ["GOOG"], bars: 250 },
    ]);
    expect(s).toMatchObject({
      runId: "r1",
      strategy: "sma",
      symbols: ["GOOG"],
      total: 250,
      done: 0,
    });
  });

  it("keeps the simulated date, bars done and equity of the last progress event", () => {
    const s = fold([
      { type: "progress", done: 10, total: 200, time: "2020-01-15", equity: 10_100 },
      { type: "progress", done: 20, total: 200, time: "2020-01-29", equity: 9_950 },
    ]);
    expect(s).toMatchObject({ done: 20, total: 200, time: "2020-01-29", equity: 9_950 });
  });

  it("nets fills into open positions and drops a position closed to zero", () => {
    const s = fold([
      fill("SPY", "buy", 10),
      fill("GOOG", "buy", 5),
      fill("SPY", "sell", 4),
      fill("GOOG", "sell", 5),
    ]);
    expect(s.positions).toEqual([{ symbol: "SPY", qty: 6 }]);
    expect(s.counts.fills).toBe(4);
  });

  it("keeps only the latest warnings", () => {
    const warnings = ["a", "b", "c", "d", "e"].map(
      (m): RunEvent => ({ type: "warning", message: m }),
    );
    expect(fold(warnings).warnings).toEqual(["c", "d", "e"].slice(-WARNINGS_KEPT));
  });

  it("ends on the totals the run wrote: status, rejected orders, failed decisions, retries, LLM usage", () => {
    const result = {
      status: "completed",
      orders: { rejected: 2 },
      llm: {
        agent: { failedDecisions: 1 },
        usage: {
          calls: { total: 9 },
          tokens: { prompt: 9000, completion: 450, cached: 0 },
          retries: { rate_limit: 2, server_error: 1 },
          cost: { usd: 0.00162, reason: null },
        },
      },
    } as unknown as RunResult;
    const s = fold([{ type: "run_finished", result }]);
    expect(s.status).toBe("completed");
    expect(s.counts).toMatchObject({ rejected: 2, failedDecisions: 1, retries: 3 });
    expect(s.llm).toMatchObject({ calls: 9, tokens: 9450, costUsd: 0.00162 });
  });

  it("does not change the state it was given", () => {
    const before = initialLiveState();
    const frozen = JSON.stringify(before);
    liveState(before, fill("SPY", "buy", 1));
    expect(JSON.stringify(before)).toBe(frozen);
  });
});
