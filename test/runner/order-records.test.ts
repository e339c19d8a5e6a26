import { describe, expect, it } from "vitest";
import type { Order } from "../../src/engine/types.js";
import { orderEventRecord, orderSummary } from "../../src/runner/order-records.js";

const order: Order = {
  id: 7,
  symbol: "AAA",
  side: "buy",
  type: "limit",
  size: { kind: "qty", qty: 3 },
  limitPrice: 9.5,
  stopPrice: null,
  tif: { kind: "gtc" },
  stopLoss: 9,
  takeProfit: null,
  tag: "dip",
  submittedIndex: 4,
  submittedTime: 0,
  parentId: null,
  ocoId: 8,
  status: "working",
  remainingQty: 3,
  filledQty: 0,
  avgFillPrice: 0,
  barsWorked: 0,
  dayKey: null,
  reason: null,
  fixedFeeCharged: false,
};

describe("orders.jsonl records", () => {
  it("an order event is the order's summary, in its key order, with the event's status and reason, then the links", () => {
    const rec = orderEventRecord(
      { type: "order_rejected", index: 5, time: 0, order, reason: "not enough cash" },
      "2024-01-05",
    );
    const summary = orderSummary(order);
    expect(Object.keys(rec)).toEqual([
      "event",
      "time",
      "bar",
      ...Object.keys(summary),
      "parentId",
      "ocoId",
    ]);
    expect(JSON.stringify(rec)).toBe(
      JSON.stringify({
        event: "rejected",
        time: "2024-01-05",
        bar: 5,
        ...summary,
        status: "rejected",
        reason: "not enough cash",
        parentId: null,
        ocoId: 8,
      }),
    );
    const accepted = orderEventRecord({ type: "order_accepted", index: 4, time: 0, order }, "t");
    expect([accepted.event, accepted.status, accepted.reason]).toEqual([
      "accepted",
      "accepted",
      null,
    ]);
  });
});
