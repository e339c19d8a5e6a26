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

const EVENT_NAMES: Record<string, string> = {
  order_accepted: "accepted",
  order_rejected: "rejected",
  order_cancelled: "cancelled",
  order_expired: "expired",
};

/** One orders.jsonl line for an order event: `orderSummary`'s fields in its order, the event's
 * status and reason in place of the order's, then the links. One object, built once per event. */
export function orderEventRecord(e: Extract<EngineEvent, { order: unknown }>, time: string) {
  const event = EVENT_NAMES[e.type] ?? e.type.replace("order_", "");
  const o = e.order;
  // The order object may have moved on by the time the event is written: the event is the status.
  return {
    event,
    time,
    bar: e.index,
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
    status: event,
    reason: "reason" in e ? e.reason : o.reason,
    tag: o.tag,
    parentId: o.parentId,
    ocoId: o.ocoId,
  };
}
