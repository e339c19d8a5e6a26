import type { EngineEvent, Order, OrderSize, TimeInForce } from "../engine/types.js";

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

/**
 * A record made of an order's fields, as a snapshot a RecordLog may serialize later: its size and
 * tif copied (the order keeps the originals, which a strategy could still change), or the line
 * itself now when either is anything but a flat plain object (only a copy of one serializes the
 * same later).
 */
export function orderSnapshot<R extends { size: OrderSize; tif: TimeInForce }>(
  record: R,
): R | string {
  const size = flatCopy(record.size);
  const tif = flatCopy(record.tif);
  if (size === null || tif === null) return JSON.stringify(record);
  record.size = size;
  record.tif = tif;
  return record;
}

/** An order's summary for decisions.jsonl, as orderSnapshot gives it. */
export function summarySnapshot(o: Order): ReturnType<typeof orderSummary> | string {
  return orderSnapshot(orderSummary(o));
}

/** A copy of an object of primitives whose prototype is Object's (JSON.stringify serializes the
 * copy as it would have the original at the time), or null for anything else. */
function flatCopy<T extends object>(v: T): T | null {
  if (Object.getPrototypeOf(v) !== Object.prototype || "toJSON" in v) return null;
  const copy = { ...v };
  for (const k in copy) {
    const x = copy[k];
    if (typeof x === "object" && x !== null) return null;
  }
  return copy;
}
