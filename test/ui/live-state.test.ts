import { describe, expect, it } from "vitest";
import type { Order } from "../../src/engine/types.js";
import type { RunResult } from "../../src/rundir/run-result.js";
import type { RunEvent } from "../../src/runner/run-events.js";
import {
  copyLiveState,
  foldLiveEvent,
  initialLiveState,
  liveState,
  orderLine,
  TICKER_LENGTH,
  WARNINGS_KEPT,
} from "../../src/ui/live-state.js";

const fold = (events: RunEvent[], s = initialLiveState()) => events.reduce(liveState, s);

const order = (o: Partial<Order>): Order =>
  ({
    id: 1,
    symbol: "SPY",
    side: "buy",
    type: "market",
    size: { kind: "qty", qty: 10 },
    limitPrice: null,
    stopPrice: null,
    ...o,
  }) as Order;

const started: RunEvent = {
  type: "run_started",
  id: "r1",
  dir: "/x",
  strategy: "rsi",
  kind: "llm",
  symbols: ["SPY"],
  bars: 250,
  start: "2020-01-02",
  end: "2020-12-31",
  initialCash: 10_000,
  resumedFrom: null,
};

const progress = (done: number, time: string, equity: number): RunEvent => ({
  type: "progress",
  done,
  total: 250,
  time,
  bar: done - 1,
  equity,
  cash: 4_000,
  peakEquity: 10_500,
  drawdownPct: (equity / 10_500 - 1) * 100,
  maxDrawdownPct: (equity / 10_500 - 1) * 100,
  returnPct: (equity / 10_000 - 1) * 100,
  benchmarkEquity: 10_300,
  benchmarkReturnPct: 3,
  positions: [{ symbol: "SPY", qty: 20 }],
  elapsedMs: 400,
});

describe("liveState", () => {
  it("starts from run_started: name, symbols, bars, first date and initial cash", () => {
    const s = fold([started]);
    expect(s).toMatchObject({
      runId: "r1",
      strategy: "rsi",
      symbols: ["SPY"],
      total: 250,
      done: 0,
      time: "2020-01-02",
      equity: 10_000,
    });
    expect(s.llm).toEqual({
      calls: 0,
      tokens: 0,
      costUsd: 0,
      costUnknown: false,
      maxCostUsd: null,
      maxTokens: null,
    });
  });

  it("keeps the date, equity, returns, drawdown and positions of the last progress event", () => {
    const s = fold([
      started,
      progress(10, "2020-01-15", 10_100),
      progress(20, "2020-01-29", 9_975),
    ]);
    expect(s).toMatchObject({ done: 20, time: "2020-01-29", equity: 9_975, elapsedMs: 400 });
    expect(s.returnPct).toBeCloseTo(-0.25, 10);
    expect(s.benchmarkReturnPct).toBe(3);
    expect(s.drawdownPct).toBeCloseTo(-5, 10);
    expect(s.positions).toEqual([{ symbol: "SPY", qty: 20 }]);
  });

  it("gives the last decision the orders accepted at its bar, its rationale and tool calls", () => {
    const s = fold([
      started,
      { type: "decision_started", time: "2020-01-03", bar: 1, kind: "decision" },
      {
        type: "decision_finished",
        time: "2020-01-03",
        bar: 1,
        kind: "decision",
        rationale: "Oversold.",
        toolCalls: [
          { name: "get_indicator", error: null },
          { name: "place_order", error: null },
          { name: "place_order", error: "invalid_arguments" },
        ],
        calls: 2,
        tokens: { prompt: 100, completion: 10, cached: 0 },
        latencyMs: 300,
        error: null,
        failed: false,
      },
      { type: "order_accepted", time: "2020-01-03", bar: 1, order: order({}) },
      {
        type: "order_accepted",
        time: "2020-01-03",
        bar: 1,
        order: order({
          side: "sell",
          type: "limit",
          size: { kind: "fraction", fraction: 0.5 },
          limitPrice: 101.5,
        }),
      },
      // An order of another bar (a code strategy's hook, a later bar) is not this decision's.
      { type: "order_accepted", time: "2020-01-06", bar: 2, order: order({ symbol: "QQQ" }) },
    ]);
    expect(s.lastDecision).toEqual({
      time: "2020-01-03",
      bar: 1,
      orders: ["BUY 10 SPY market", "SELL 50% SPY limit 101.5"],
      rationale: "Oversold.",
      failed: false,
    });
    expect(s.toolCalls).toEqual(["get_indicator", "place_order", "place_order ✗"]);
  });

  it("counts rejected orders, failed decisions and retries the moment they happen", () => {
    const s = fold([
      started,
      { type: "order_rejected", time: "t", bar: 1, order: order({}), reason: "no cash" },
      {
        type: "retry",
        model: "m",
        error: "rate_limit",
        message: "429",
        attempt: 1,
        delayMs: 10,
      },
      {
        type: "decision_finished",
        time: "t",
        bar: 1,
        kind: "decision",
        rationale: null,
        toolCalls: [],
        calls: 1,
        tokens: { prompt: 0, completion: 0, cached: 0 },
        latencyMs: 5,
        error: { type: "empty_reply", message: "the model answered nothing" },
        failed: true,
      },
    ]);
    expect(s.counts).toMatchObject({ rejected: 1, retries: 1, failedDecisions: 1 });
    // The wait was shown while it lasted, and is gone once the decision ended.
    expect(s.waiting).toBeNull();
    expect(s.lastDecision).toMatchObject({
      failed: true,
      rationale: "empty_reply: the model answered nothing",
    });
  });

  it("shows a retry's wait, its length and where it comes from, until the call ends", () => {
    const waiting = fold([
      started,
      {
        type: "retry",
        model: "gpt-4o-mini",
        error: "rate_limit",
        message: "429",
        attempt: 2,
        delayMs: 95_000,
        waitFrom: "server",
      },
    ]);
    expect(waiting.waiting).toBe(
      "waiting 95 s (as the server asked) to retry gpt-4o-mini after rate_limit on attempt 2",
    );
    const answered = liveState(waiting, {
      type: "llm_call",
      model: "gpt-4o-mini",
      source: "network",
      tokens: { prompt: 1, completion: 1, cached: 0 },
      costUsd: 0,
      latencyMs: 1,
      attempts: 3,
      error: null,
    });
    expect(answered.waiting).toBeNull();
  });

  it("adds up LLM calls, tokens and cost, against the budget it was given", () => {
    const call = (prompt: number, completion: number, costUsd: number | null): RunEvent => ({
      type: "llm_call",
      model: "gpt-4o-mini",
      source: "network",
      tokens: { prompt, completion, cached: 0 },
      costUsd,
      latencyMs: 200,
      attempts: 1,
      error: null,
    });
    const s = fold(
      [started, call(1000, 50, 0.00018), call(2000, 100, 0.00036), call(500, 0, null)],
      initialLiveState({ maxCostUsd: 0.01, maxTokens: null }),
    );
    expect(s.llm?.calls).toBe(3);
    expect(s.llm?.tokens).toBe(3650);
    expect(s.llm?.costUsd).toBeCloseTo(0.00054, 12);
    expect(s.llm?.maxCostUsd).toBe(0.01);
  });

  it("keeps only the latest warnings and tool calls", () => {
    const warnings = ["a", "b", "c", "d", "e"].map(
      (m): RunEvent => ({ type: "warning", message: m }),
    );
    expect(fold(warnings).warnings).toEqual(["a", "b", "c", "d", "e"].slice(-WARNINGS_KEPT));
    const finishedWith = (name: string): RunEvent => ({
      type: "decision_finished",
      time: "t",
      bar: 1,
      kind: "moment",
      rationale: null,
      toolCalls: [{ name, error: null }],
      calls: 1,
      tokens: { prompt: 0, completion: 0, cached: 0 },
      latencyMs: 1,
      error: null,
      failed: false,
    });
    const names = Array.from({ length: TICKER_LENGTH + 2 }, (_, i) => `tool${i}`);
    expect(fold(names.map(finishedWith)).toolCalls).toEqual(names.slice(-TICKER_LENGTH));
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
    const before = fold([started]);
    const frozen = JSON.stringify(before);
    liveState(before, progress(5, "2020-01-09", 10_050));
    expect(JSON.stringify(before)).toBe(frozen);
  });
});

describe("foldLiveEvent (the renderer's in-place fold)", () => {
  const decided: RunEvent = {
    type: "decision_finished",
    time: "2020-01-03",
    bar: 1,
    kind: "decision",
    rationale: "Oversold.",
    toolCalls: [{ name: "place_order", error: null }],
    calls: 1,
    tokens: { prompt: 100, completion: 10, cached: 0 },
    latencyMs: 300,
    error: null,
    failed: false,
  };
  const events: RunEvent[] = [
    started,
    progress(1, "2020-01-02", 10_000),
    decided,
    { type: "order_accepted", time: "2020-01-03", bar: 1, order: order({}) },
    { type: "fill", time: "2020-01-06", bar: 2, fill: {} } as unknown as RunEvent,
    { type: "trade_closed", time: "2020-01-09", bar: 5, trade: {} } as unknown as RunEvent,
    { type: "order_rejected", time: "t", bar: 6, order: order({}), reason: "no cash" },
    { type: "retry", model: "m", error: "rate_limit", message: "429", attempt: 1, delayMs: 10 },
    {
      type: "llm_call",
      model: "m",
      source: "network",
      tokens: { prompt: 40, completion: 2, cached: 0 },
      costUsd: 0.001,
      latencyMs: 20,
      attempts: 1,
      error: null,
    },
    { type: "warning", message: "slow" },
    progress(7, "2020-01-13", 10_100),
  ];

  it("reaches the state the pure fold reaches, event by event", () => {
    const inPlace = initialLiveState({ maxCostUsd: 1, maxTokens: null });
    let pure = initialLiveState({ maxCostUsd: 1, maxTokens: null });
    for (const e of events) {
      foldLiveEvent(inPlace, e);
      pure = liveState(pure, e);
      expect(inPlace).toEqual(pure);
    }
    expect(inPlace.counts).toEqual({
      fills: 1,
      tradesClosed: 1,
      trades: null,
      openAtEnd: 0,
      rejected: 1,
      failedDecisions: 0,
      retries: 1,
    });
    expect(inPlace.lastDecision?.orders).toEqual(["BUY 10 SPY market"]);
    expect(inPlace.llm).toMatchObject({ calls: 1, tokens: 42, costUsd: 0.001, maxCostUsd: 1 });
  });

  it("leaves a copy taken earlier, and the events' own arrays, as they were", () => {
    const s = initialLiveState();
    for (const e of events.slice(0, 3)) foldLiveEvent(s, e);
    const copy = copyLiveState(s);
    const frozen = JSON.stringify(copy);
    const positions = JSON.stringify((events[1] as { positions: unknown }).positions);
    for (const e of events.slice(3)) foldLiveEvent(s, e);
    expect(JSON.stringify(copy)).toBe(frozen);
    expect(s.lastDecision?.orders).toHaveLength(1);
    expect(copy.lastDecision?.orders).toHaveLength(0);
    expect(JSON.stringify((events[1] as { positions: unknown }).positions)).toBe(positions);
  });
});

describe("orderLine", () => {
  it("reads side, size, symbol, type and price", () => {
    expect(orderLine(order({}))).toBe("BUY 10 SPY market");
    expect(
      orderLine(
        order({
          side: "sell",
          type: "stop",
          size: { kind: "fraction", fraction: 0.25 },
          stopPrice: 99,
        }),
      ),
    ).toBe("SELL 25% SPY stop 99");
  });
});

describe("the live state of a code run and of prices unknown", () => {
  it("keeps a code run's orders of its latest bar that placed any, tagged", () => {
    const code: RunEvent = { ...started, kind: "code" } as RunEvent;
    const accepted = (bar: number, tag: string | null): RunEvent => ({
      type: "order_accepted",
      time: `2020-01-0${bar}`,
      bar,
      order: order({ tag }),
    });
    const s = fold([code, accepted(2, "entry"), accepted(5, null), accepted(5, "exit")]);
    expect(s.lastOrders).toEqual({
      time: "2020-01-05",
      bar: 5,
      orders: ["BUY 10 SPY market", "BUY 10 SPY market [exit]"],
      more: 0,
    });
    const many = fold([code, ...Array.from({ length: 7 }, () => accepted(3, null))]);
    expect(many.lastOrders?.orders).toHaveLength(4);
    expect(many.lastOrders?.more).toBe(3);
  });

  it("marks the cost unknown once a call's price is, and at the end when the run's is", () => {
    const call = (costUsd: number | null): RunEvent => ({
      type: "llm_call",
      model: "m",
      source: "network",
      tokens: { prompt: 1, completion: 1, cached: 0 },
      costUsd,
      latencyMs: 1,
      attempts: 1,
      error: null,
    });
    expect(fold([started, call(0.01)]).llm?.costUnknown).toBe(false);
    expect(fold([started, call(0.01), call(null)]).llm?.costUnknown).toBe(true);
  });

  it("ends on result.json's max drawdown and its trades, open ones counted", () => {
    const result = {
      status: "completed",
      orders: { rejected: 0 },
      metrics: { trades: 33, maxDrawdownPct: -21.5 },
      trades: { closed: 32, openAtEnd: 1, dataEnded: 0 },
    } as unknown as RunResult;
    const s = fold([started, { type: "run_finished", result }]);
    expect(s.maxDrawdownPct).toBe(-21.5);
    expect(s.counts).toMatchObject({ trades: 33, openAtEnd: 1 });
  });
});

describe("the live state while the data loads", () => {
  it("keeps the latest loading event until the run starts", () => {
    const s = initialLiveState();
    foldLiveEvent(s, { type: "loading", bytesRead: 10, bytesTotal: 100, elapsedMs: 5 });
    foldLiveEvent(s, { type: "loading", bytesRead: 60, bytesTotal: 100, elapsedMs: 105 });
    expect(s.loading?.bytesRead).toBe(60);
    foldLiveEvent(s, {
      type: "run_started",
      id: "r",
      dir: "",
      strategy: "s",
      kind: "code",
      symbols: ["X"],
      bars: 10,
      start: null,
      end: null,
      initialCash: 1000,
      resumedFrom: null,
    });
    expect(s.loading).toBeNull();
  });

  it("never goes back: an event read late (the line on screen went on meanwhile) is dropped", () => {
    const s = initialLiveState();
    // What the worker's own line showed when the view took over, then a queued older event.
    foldLiveEvent(s, { type: "loading", bytesRead: 33_000, bytesTotal: 46_000, elapsedMs: 400 });
    foldLiveEvent(s, { type: "loading", bytesRead: 0, bytesTotal: 46_000, elapsedMs: 0 });
    expect(s.loading?.bytesRead).toBe(33_000);
    foldLiveEvent(s, { type: "loading", bytesRead: 40_000, bytesTotal: 46_000, elapsedMs: 500 });
    expect(s.loading?.bytesRead).toBe(40_000);
  });
});
