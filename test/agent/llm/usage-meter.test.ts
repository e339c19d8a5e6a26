import { describe, expect, it } from "vitest";
import { type MeteredCall, nearestRank, UsageMeter } from "../../../src/agent/llm/usage-meter.js";

const prices = { m1: { input: 1, cachedInput: 0.5, output: 2 } };
const call = (over: Partial<MeteredCall>): MeteredCall => ({
  model: "m1",
  source: "network",
  usage: { prompt: 0, completion: 0, cached: 0 },
  latencyMs: 0,
  error: null,
  ...over,
});

describe("nearestRank", () => {
  it("takes the ⌈p·n⌉-th smallest value", () => {
    const twenty = Array.from({ length: 20 }, (_, i) => (i + 1) * 10);
    expect(nearestRank(twenty, 50)).toBe(100);
    expect(nearestRank(twenty, 95)).toBe(190);
    expect(nearestRank([10, 20, 30, 40, 50], 50)).toBe(30);
    expect(nearestRank([10, 20, 30, 40, 50], 95)).toBe(50);
    expect(nearestRank([7], 95)).toBe(7);
    expect(nearestRank([], 50)).toBeNull();
  });
});

describe("UsageMeter", () => {
  it("adds up tokens, sources, latency of network calls and errors", () => {
    const meter = new UsageMeter(prices);
    for (const latencyMs of [50, 10, 40, 30, 20]) {
      meter.record(call({ latencyMs, usage: { prompt: 100, completion: 10, cached: 20 } }));
    }
    meter.record(call({ source: "cache", usage: { prompt: 100, completion: 10, cached: 0 } }));
    meter.record(
      call({ source: "replay", latencyMs: 999, usage: { prompt: 1, completion: 1, cached: 1 } }),
    );
    meter.record(call({ error: "timeout", latencyMs: 5000 }));
    meter.record(call({ error: "timeout" }));
    meter.record(call({ error: "rate_limit" }));
    const s = meter.snapshot();
    expect(s.calls).toEqual({ total: 10, network: 8, cache: 1, replay: 1, failed: 3 });
    expect(s.tokens).toEqual({ prompt: 601, completion: 61, cached: 101 });
    expect(s.billedTokens).toEqual({ prompt: 500, completion: 50, cached: 100 });
    expect(s.latencyMs).toEqual({ p50: 30, p95: 50 });
    expect(s.errors).toEqual({ timeout: 2, rate_limit: 1 });
    // (400 × 1 + 100 × 0.5 + 50 × 2) / 1e6: cache and replay answers cost nothing.
    expect(s.cost.usd).toBeCloseTo(0.00055, 12);
    expect(s.cost.reason).toBeNull();
    expect(s.byModel.m1?.costUsd).toBeCloseTo(0.00055, 12);
    expect(meter.billedTokenCount()).toBe(550);
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
  });

  it("reports the cost as unknown, with the reason, when a billed model has no price", () => {
    const meter = new UsageMeter(prices);
    meter.record(call({ usage: { prompt: 10, completion: 1, cached: 0 } }));
    meter.record(
      call({ model: "llama3.1", source: "cache", usage: { prompt: 9, completion: 9, cached: 0 } }),
    );
    expect(meter.costUsd()).toBeCloseTo(0.000012, 12);
    meter.record(call({ model: "llama3.1", usage: { prompt: 10, completion: 1, cached: 0 } }));
    const s = meter.snapshot();
    expect(s.cost.usd).toBeNull();
    expect(s.cost.reason).toContain('"llama3.1"');
    expect(s.cost.reason).toContain("--prices");
    expect(s.byModel["llama3.1"]?.costUsd).toBeNull();
  });

  it("never gives a null cost without its reason, even when the sum overflows", () => {
    // A table built in code is not bounded like a price file.
    const meter = new UsageMeter({ m1: { input: 1e300, cachedInput: 1e300, output: 1e300 } });
    meter.record(call({ usage: { prompt: 1e9, completion: 1e9, cached: 0 } }));
    const s = meter.snapshot();
    expect(s.cost.usd).toBeNull();
    expect(s.cost.reason).toMatch(/not a finite number/);
    expect(JSON.parse(JSON.stringify(s.cost))).toEqual(s.cost);
  });

  it("has no latency percentiles and zero cost before any call", () => {
    const s = new UsageMeter(prices).snapshot();
    expect(s.latencyMs).toEqual({ p50: null, p95: null });
    expect(s.cost).toEqual({ usd: 0, reason: null });
  });
});

describe("UsageMeter: a server that reports no usage", () => {
  it("keeps tokens and cost unknown, and budgets from the estimate", () => {
    const meter = new UsageMeter(prices);
    meter.record(call({ usage: { prompt: 100, completion: 10, cached: 0 } }));
    meter.record(
      call({
        usage: { prompt: 0, completion: 0, cached: 0, unknown: true },
        estimate: { prompt: 400, completion: 40 },
      }),
    );
    meter.record(
      call({ source: "cache", usage: { prompt: 0, completion: 0, cached: 0, unknown: true } }),
    );
    const s = meter.snapshot();
    expect(s.usageUnknown).toEqual({
      calls: 2,
      billedCalls: 1,
      estimated: { prompt: 400, completion: 40 },
    });
    expect(s.cost).toEqual({ usd: null, reason: "the server reported no token usage for 1 call" });
    expect(s.byModel.m1?.costUsd).toBeNull();
    expect(meter.billedTokenCount()).toBe(110);
    expect(meter.budgetTokenCount()).toBe(550);
    // (100 + 400) × 1 + (10 + 40) × 2 per 1M tokens.
    expect(meter.budgetCostUsd()).toBeCloseTo(600 / 1e6, 12);
    expect(
      meter.callCost("m1", "network", { prompt: 0, completion: 0, cached: 0, unknown: true }),
    ).toBeNull();
  });

  it("adds nothing to the snapshot of a server that reports usage", () => {
    const meter = new UsageMeter(prices);
    meter.record(call({ usage: { prompt: 100, completion: 10, cached: 0 } }));
    const s = meter.snapshot();
    expect(s).not.toHaveProperty("usageUnknown");
    expect(s).not.toHaveProperty("reasoningTokens");
    meter.record(call({ usage: { prompt: 1, completion: 9, cached: 0, reasoning: 6 } }));
    expect(meter.snapshot().reasoningTokens).toBe(6);
  });
});
