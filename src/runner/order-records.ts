import type { EngineEvent, Fill, Order } from "../engine/types.js";

/** An event of an order, as orderEventRecord reads it. */
type OrderEvent = Extract<EngineEvent, { order: unknown }>;

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
export function orderEventRecord(e: OrderEvent, time: string) {
  const event = EVENT_NAMES[e.type] ?? e.type.replace("order_", "");
  const o = e.order;
  // The order object may have moved on by the time the event is written: the event is the status.
  // Written out rather than `...orderSummary(o)`: one object a line, not two (measured 20-25 %
  // more time making orders.jsonl at 80,000 lines with the spread).
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
 * The values a record keeps of an order (RecordLog), pushed in this order: the order itself, and
 * the fields the engine changes after an order is made (its side once it is sized, status, reason,
 * ocoId) as they are now. The other fields records read are the engine's to keep as they were (the
 * Order type has them readonly): they are read from the order when the line is made.
 */
function pushOrder(to: unknown[], o: Readonly<Order>): void {
  to.push(o, o.side, o.status, o.reason, o.ocoId);
}

const ORDER_VALUES = 5;

/** The order pushOrder kept at `at`, as it was then. */
function orderAt(v: readonly unknown[], at: number): Order {
  return {
    ...(v[at] as Order),
    side: v[at + 1] as Order["side"],
    status: v[at + 2] as Order["status"],
    reason: v[at + 3] as Order["reason"],
    ocoId: v[at + 4] as Order["ocoId"],
  };
}

/**
 * Keeps an order event's record as values (orderEventAt makes it back). Its time label is not
 * kept: it is the bar's, made again from the bar when the line is (a string per record kept
 * through a million-bar loop was most of what the records cost the garbage collector).
 */
export function pushOrderEvent(to: unknown[], e: OrderEvent): void {
  // The reason the record will say, resolved now as orderEventRecord resolves it.
  to.push(e.type, e.index, "reason" in e ? e.reason : e.order.reason);
  pushOrder(to, e.order);
}

/** The record pushOrderEvent kept at `at`: orderEventRecord's object, as it was then. */
export function orderEventAt(v: readonly unknown[], at: number, label: (i: number) => string) {
  const index = v[at + 1] as number;
  const e = {
    type: v[at] as OrderEvent["type"],
    index,
    time: 0,
    order: orderAt(v, at + 3),
    reason: v[at + 2] as string,
  };
  return orderEventRecord(e, label(index));
}

/** Keeps a fill's orders.jsonl record: the fill itself (the engine freezes it) and its bar. */
export function pushFill(to: unknown[], fill: Fill, bar: number): void {
  to.push(fill, bar);
}

/** The record pushFill kept at `at`: the fill's fields, then its bar's label and the bar. */
export function fillAt(v: readonly unknown[], at: number, label: (i: number) => string) {
  const bar = v[at + 1] as number;
  return { event: "fill", ...(v[at] as Fill), time: label(bar), bar };
}

/** One decisions.jsonl record: a hook's time, bar and kind, its details, then what it did. */
export function decisionRecord(
  time: string,
  bar: number,
  kind: string,
  details: Record<string, unknown> | null,
  orders: unknown[],
  cancels: readonly number[],
  memory: readonly unknown[],
  recalls: readonly unknown[],
) {
  return { time, bar, kind, ...details, orders, cancels, memory, recalls };
}

/** Keeps a decision with orders and cancels only (no details, memory or recalls) as values. */
export function pushDecision(
  to: unknown[],
  bar: number,
  kind: string,
  orders: readonly Order[],
  cancels: readonly number[],
): void {
  to.push(bar, kind, orders.length);
  for (const o of orders) pushOrder(to, o);
  to.push(cancels.length);
  for (const c of cancels) to.push(c);
}

/** The record pushDecision kept at `at`, as decisionRecord made it then. */
export function decisionAt(v: readonly unknown[], at: number, label: (i: number) => string) {
  const n = v[at + 2] as number;
  const orders: unknown[] = [];
  let k = at + 3;
  for (let j = 0; j < n; j++, k += ORDER_VALUES) orders.push(orderSummary(orderAt(v, k)));
  const cancels = v.slice(k + 1, k + 1 + (v[k] as number)) as number[];
  const bar = v[at] as number;
  return decisionRecord(label(bar), bar, v[at + 1] as string, null, orders, cancels, [], []);
}
