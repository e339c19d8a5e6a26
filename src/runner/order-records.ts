import type { EngineEvent, Order } from "../engine/types.js";

/** The fields of an order worth recording (decisions.jsonl, orders.jsonl). */
export function orderSummary(o: Order) {
  return {
    id: o.id,
    symbol: o.symbol,
    side: o.side,
    type: o.type,
    size: o.size,
    limitPrice: o.limitPrice,
    stopPrice: o.stopPrice,
    stopLoss: o.stopLoss,
    takeProfit: o.takeProfit,
    tif: o.tif,
    status: o.status,
    reason: o.reason,
    tag: o.tag,
  };
}

/** One orders.jsonl line for an order event. */
export function orderEventRecord(e: Extract<EngineEvent, { order: unknown }>, time: string) {
  const event = e.type.replace("order_", "");
  // The order object may have moved on by the time the event is written: the event is the status.
  return {
    event,
    time,
    bar: e.index,
    ...orderSummary(e.order),
    status: event,
    reason: "reason" in e ? e.reason : e.order.reason,
    parentId: e.order.parentId,
    ocoId: e.order.ocoId,
  };
}
