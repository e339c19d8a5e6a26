import { describe, expect, it } from "vitest";
import type { Order } from "../../src/engine/types.js";
import { TRACE_RATIONALE_CHARS, traceText } from "../../src/runner/decision-traces.js";

const order = (o: Partial<Order>): Order => ({
  id: 1,
  symbol: "SPY",
  side: "buy",
  type: "market",
  size: { kind: "qty", qty: 10 },
  limitPrice: null,
  stopPrice: null,
  tif: { kind: "gtc" },
  stopLoss: null,
  takeProfit: null,
  tag: null,
  submittedIndex: 0,
  submittedTime: 0,
  parentId: null,
  ocoId: null,
  status: "working",
  remainingQty: null,
  filledQty: 0,
  avgFillPrice: 0,
  barsWorked: 0,
  dayKey: null,
  reason: null,
  fixedFeeCharged: false,
  ...o,
});

const activity = (a: Partial<Parameters<typeof traceText>[1]>) => ({
  orders: [],
  cancels: [],
  memory: [],
  recalls: [],
  details: null,
  ...a,
});

describe("a decision's trace", () => {
  it("names each order with the broker's answer, the cancels, the failure and the rationale", () => {
    const text = traceText(
      "decision",
      activity({
        orders: [
          order({
            side: "sell",
            size: { kind: "fraction", fraction: 0.5 },
            type: "limit",
            limitPrice: 101.5,
          }),
          order({ id: 2, status: "rejected", reason: "insufficient cash" }),
        ],
        cancels: [7],
        details: { rationale: "RSI  at 28,\nbuying the dip", error: { type: "max_steps" } },
      }),
    );
    expect(text).toBe(
      "decision: sell 50% of equity SPY limit @ 101.5 -> working; " +
        "buy 10 SPY market -> rejected (insufficient cash); cancel order #7; failed: max_steps; " +
        "why: RSI at 28, buying the dip",
    );
  });

  it("a hold says so; a rationale is cut; memory calls, recalls and moments are no trace", () => {
    const long = "x".repeat(TRACE_RATIONALE_CHARS + 5);
    expect(traceText("decision", activity({ details: { rationale: long } }))).toBe(
      `decision: no order; why: ${"x".repeat(TRACE_RATIONALE_CHARS)}…`,
    );
    expect(
      traceText(
        "bar",
        activity({
          memory: [{ tool: "log", chars: 3 }],
          recalls: [{ query: "buy", citations: [], seq: 1 }],
        }),
      ),
    ).toBeNull();
    expect(
      traceText("bar", activity({ details: { type: "moment", rationale: "noted the day" } })),
    ).toBeNull();
  });
});
