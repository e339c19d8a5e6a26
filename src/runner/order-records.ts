import type { EngineEvent, Fill, Order } from "../engine/types.js";
import { JsonField, jsonField, jsonString, plain } from "../util/json-text.js";

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
  // Written out rather than `...orderSummary(o)`: one object a line, not two.
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

/**
 * Keeps an order event's record as values (orderEventAt makes it back). Its time label is not
 * kept: it is the bar's, made again from the bar when the line is (a string kept per record
 * would be most of what the records cost the garbage collector).
 */
export function pushOrderEvent(to: unknown[], e: OrderEvent): void {
  // The reason the record will say, resolved now as orderEventRecord resolves it.
  to.push(e.type, e.index, "reason" in e ? e.reason : e.order.reason);
  pushOrder(to, e.order);
}

/**
 * The orders.jsonl line of the record pushOrderEvent kept at `at`: JSON.stringify of
 * orderEventRecord's object as it was then, written field by field (no object; most fields need
 * no JSON.stringify).
 */
export function orderEventAt(v: readonly unknown[], at: number, label: (i: number) => string) {
  const event = eventTexts(v[at] as OrderEvent["type"]);
  const index = v[at + 1];
  const o = v[at + 3] as Order;
  return (
    `${event.head}${timeField(',"time":', label(index as number))}${F.bar.of(index)}${F.id.of(o.id)}` +
    orderParts(o, v[at + 4]) +
    `${event.status}${F.reason.of(v[at + 2])}${F.tag.of(o.tag)}` +
    (o.parentId === null && v[at + 7] === null
      ? ',"parentId":null,"ocoId":null}'
      : `${F.parentId.of(o.parentId)}${F.ocoId.of(v[at + 7])}}`)
  );
}

/** An event type's line start (`{"event":"accepted"`) and status (`,"status":"accepted"`). */
function eventTexts(type: OrderEvent["type"]): { head: string; status: string } {
  let texts = EVENT_TEXTS.get(type);
  if (texts === undefined) {
    const event = jsonString(EVENT_NAMES[type] ?? type.replace("order_", ""));
    texts = { head: `{"event":${event}`, status: `,"status":${event}` };
    // The engine's few types; any other is made each time rather than remembered.
    if (Object.hasOwn(EVENT_NAMES, type)) EVENT_TEXTS.set(type, texts);
  }
  return texts;
}

const EVENT_TEXTS = new Map<string, { head: string; status: string }>();

/** The keys of records' lines, each remembering the text of what it wrote last (JsonField). */
const F = {
  bar: new JsonField(',"bar":'),
  kind: new JsonField(',"kind":'),
  id: new JsonField(',"id":'),
  firstId: new JsonField('{"id":'),
  symbol: new JsonField(',"symbol":'),
  side: new JsonField(',"side":'),
  type: new JsonField(',"type":'),
  size: new JsonField(',"size":'),
  limitPrice: new JsonField(',"limitPrice":'),
  stopPrice: new JsonField(',"stopPrice":'),
  stopLoss: new JsonField(',"stopLoss":'),
  takeProfit: new JsonField(',"takeProfit":'),
  tif: new JsonField(',"tif":'),
  status: new JsonField(',"status":'),
  reason: new JsonField(',"reason":'),
  tag: new JsonField(',"tag":'),
  parentId: new JsonField(',"parentId":'),
  ocoId: new JsonField(',"ocoId":'),
};

/** A bar's label: a new string nearly every line, not worth remembering. */
function timeField(prefix: string, label: string): string {
  if (typeof label !== "string" || !plain(label)) return jsonField(prefix, label);
  return `${prefix}"${label}"`;
}

const NO_PRICES = ',"limitPrice":null,"stopPrice":null,"stopLoss":null,"takeProfit":null';

/** An order's fields from its symbol to its time in force, `side` the side it had then (the
 * others are read-only: read from the order). */
function orderParts(o: Order, side: unknown): string {
  const prices =
    o.limitPrice === null && o.stopPrice === null && o.stopLoss === null && o.takeProfit === null
      ? NO_PRICES
      : F.limitPrice.of(o.limitPrice) +
        F.stopPrice.of(o.stopPrice) +
        F.stopLoss.of(o.stopLoss) +
        F.takeProfit.of(o.takeProfit);
  return (
    F.symbol.of(o.symbol) +
    F.side.of(side) +
    F.type.of(o.type) +
    F.size.of(o.size) +
    prices +
    F.tif.of(o.tif)
  );
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

/**
 * The decisions.jsonl line of the record pushDecision kept at `at`: JSON.stringify of
 * decisionRecord's object as it was then (orderSummary of each order), written field by field.
 */
export function decisionAt(v: readonly unknown[], at: number, label: (i: number) => string) {
  const bar = v[at];
  let s = `${F.bar.of(bar)}${F.kind.of(v[at + 1])},"orders":[`;
  const n = v[at + 2] as number;
  let k = at + 3;
  for (let j = 0; j < n; j++, k += ORDER_VALUES) s += (j > 0 ? "," : "") + summaryAt(v, k);
  s += `],"cancels":${numbersAt(v, k + 1, v[k] as number)},"memory":[],"recalls":[]}`;
  return opened(timeField('{"time":', label(bar as number)), s);
}

/** JSON.stringify(orderSummary(o)) of the order pushOrder kept at `k`, as it was then. */
function summaryAt(v: readonly unknown[], k: number): string {
  const o = v[k] as Order;
  const rest = `${orderParts(o, v[k + 1])}${F.status.of(v[k + 2])}${F.reason.of(v[k + 3])}${F.tag.of(o.tag)}}`;
  return opened(F.firstId.of(o.id), rest);
}

/** An object's text from its first key (`{"key":value`, or "" when that key is left out) and
 * the rest (`,"key":value…}`, each key after a comma). */
function opened(first: string, rest: string): string {
  return first !== "" ? first + rest : rest === "}" ? "{}" : `{${rest.slice(1)}`;
}

/** JSON.stringify(v.slice(from, from + n)) for finite numbers, JSON.stringify's otherwise. */
function numbersAt(v: readonly unknown[], from: number, n: number): string {
  let s = "[";
  for (let j = 0; j < n; j++) {
    const x = v[from + j];
    if (typeof x !== "number" || !Number.isFinite(x))
      return JSON.stringify(v.slice(from, from + n));
    s += j === 0 ? `${x}` : `,${x}`;
  }
  return `${s}]`;
}
