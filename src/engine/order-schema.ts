import { z } from "zod";
import { assertNever } from "../util/assert-never.js";
import { isJsonObject } from "../util/json-object.js";
import type { OrderSize, OrderType, Side, TimeInForce } from "./types.js";

/**
 * The fields of an order, once: their names in each API, the spellings people borrow from
 * elsewhere, their ranges and what the model reads about them. The LLM tool's `place_order`
 * schema, the `buy` / `sell` options, `ctx.order` requests and the broker's shape check all read
 * this table, so a new field or range is one entry here.
 */

export const ORDER_TYPES = ["market", "limit", "stop"] as const satisfies readonly OrderType[];
export const SIDES = ["buy", "sell"] as const satisfies readonly Side[];
// Compile-time: a member added to OrderType or Side and missing above is a type error here.
const everyType: Exclude<OrderType, (typeof ORDER_TYPES)[number]> extends never ? true : never =
  true;
const everySide: Exclude<Side, (typeof SIDES)[number]> extends never ? true : never = true;
void everyType;
void everySide;

/** "market, limit or stop", for messages. */
export const orList = (names: readonly string[]): string =>
  names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;

/**
 * Largest quantity or price an order may state. Far above any real instrument (a price of 1e12, or
 * 1e12 units), yet small enough that quantity × price stays exact enough in a double and finite:
 * 1e308 is positive and would otherwise reach the broker as a real order.
 */
export const MAX_ORDER_NUMBER = 1e12;
/** A target weight is between −10 and 10 times equity. */
export const MAX_TARGET_WEIGHT = 10;
/** Longest time in force in bars. */
export const MAX_TIF_BARS = 100_000;
/** Longest reason the model may give an order (kept in its records). */
export const MAX_REASON_CHARS = 500;

/** What a value may be. Numbers are finite; `above` is exclusive, `min` and `max` inclusive. */
export type FieldValue =
  | { kind: "number"; above?: number; min?: number; max: number }
  | { kind: "choice"; choices: readonly [string, ...string[]] }
  | { kind: "string" }
  | { kind: "tif" };

/** Who names the fields: the LLM tool (snake_case), `buy` / `sell` options, an `OrderRequest`. */
export type OrderApi = "tool" | "option" | "request";

export interface OrderField {
  /** The field's name in each API; null where it is not a key (an option's side is `buy` or
   * `sell` itself, its type follows from `limit` / `stop`). */
  readonly tool: string;
  readonly option: string | null;
  readonly request: string;
  /** For a size: the `OrderSize` kind it is (a request holds it under `size`). */
  readonly sizeKind?: OrderSize["kind"];
  /** Other spellings people use for it (other libraries' and brokers' names). */
  readonly aliases: readonly string[];
  readonly value: FieldValue;
  /** What the value must be, in messages: "qty must be a finite number > 0 (got NaN)". */
  readonly expect: string;
  /** What a number above the field's `max` is told, when `expect` does not say it. */
  readonly tooBig?: string;
  /** What the model reads about it (the tool's description of the parameter). */
  readonly help: string;
}

const amount = { kind: "number", above: 0, max: MAX_ORDER_NUMBER } as const;

export const ORDER_FIELDS = {
  symbol: {
    tool: "symbol",
    option: "symbol",
    request: "symbol",
    aliases: ["ticker"],
    value: { kind: "string" },
    expect: "a string",
    help: 'Ticker exactly as listed in the context, e.g. "AAPL".',
  },
  side: {
    tool: "side",
    option: null,
    request: "side",
    aliases: [],
    value: { kind: "choice", choices: SIDES },
    expect: orList(SIDES),
    help: "buy or sell. Required with quantity or fraction_of_equity; ignored with target_weight.",
  },
  type: {
    tool: "type",
    option: null,
    request: "type",
    aliases: [],
    value: { kind: "choice", choices: ORDER_TYPES },
    expect: orList(ORDER_TYPES),
    help:
      "market (default): fills at the next bar's open. limit: buy fills at or below limit_price, " +
      "sell at or above. stop: buy triggers at or above stop_price, sell at or below.",
  },
  quantity: {
    tool: "quantity",
    option: "qty",
    request: "size",
    sizeKind: "qty",
    aliases: ["quantity", "size", "units", "shares", "amount"],
    value: amount,
    expect: "a finite number > 0",
    tooBig: `at most ${MAX_ORDER_NUMBER}`,
    help: "Size in units (shares, coins), > 0.",
  },
  fraction: {
    tool: "fraction_of_equity",
    option: "fraction",
    request: "size",
    sizeKind: "fraction",
    aliases: ["fraction", "fractionOfEquity", "pct", "percent"],
    value: { kind: "number", above: 0, max: 1 },
    expect: "a finite number in (0, 1]",
    help:
      "Size as a fraction of current equity, 0 < f <= 1 (0.25 = a quarter); converted to whole " +
      "units at the fill price.",
  },
  weight: {
    tool: "target_weight",
    option: null,
    request: "size",
    sizeKind: "weight",
    aliases: ["weight", "targetWeight"],
    value: { kind: "number", min: -MAX_TARGET_WEIGHT, max: MAX_TARGET_WEIGHT },
    expect: `a finite number between -${MAX_TARGET_WEIGHT} and ${MAX_TARGET_WEIGHT}`,
    help:
      "Trade to this position weight of equity, -10..10 (1 = fully long, 0 = flat, -0.5 = " +
      "half short); buys or sells the difference, so side is ignored.",
  },
  limitPrice: {
    tool: "limit_price",
    option: "limit",
    request: "limitPrice",
    aliases: ["price"],
    value: amount,
    expect: "a finite price > 0",
    tooBig: `at most ${MAX_ORDER_NUMBER}`,
    help: "Limit price; required for and only allowed with type limit.",
  },
  stopPrice: {
    tool: "stop_price",
    option: "stop",
    request: "stopPrice",
    aliases: [],
    value: amount,
    expect: "a finite price > 0",
    tooBig: `at most ${MAX_ORDER_NUMBER}`,
    help: "Stop trigger price; required for and only allowed with type stop.",
  },
  stopLoss: {
    tool: "stop_loss",
    option: "stopLoss",
    request: "stopLoss",
    aliases: ["sl"],
    value: amount,
    expect: "a finite price > 0",
    tooBig: `at most ${MAX_ORDER_NUMBER}`,
    help: "Absolute price of a protective stop, placed once this order fills (bracket, OCO with take_profit).",
  },
  takeProfit: {
    tool: "take_profit",
    option: "takeProfit",
    request: "takeProfit",
    aliases: ["tp"],
    value: amount,
    expect: "a finite price > 0",
    tooBig: `at most ${MAX_ORDER_NUMBER}`,
    help: "Absolute price of a profit-taking limit, placed once this order fills (bracket, OCO with stop_loss).",
  },
  tif: {
    tool: "time_in_force",
    option: "tif",
    request: "tif",
    aliases: ["timeInForce"],
    value: { kind: "tif" },
    expect: `{ kind: "gtc" }, { kind: "day" } or { kind: "bars", bars: N } with N a whole number from 1 to ${MAX_TIF_BARS}`,
    help:
      'How long the order works: "gtc" until filled or cancelled (default), "day" until the end ' +
      "of its first trading day, or a number of bars.",
  },
  tag: {
    tool: "reason",
    option: "tag",
    request: "tag",
    aliases: ["reason"],
    value: { kind: "string" },
    expect: "a string",
    help: `Why, in one sentence (<= ${MAX_REASON_CHARS} characters); kept in the order records.`,
  },
} as const satisfies Record<string, OrderField>;

export type OrderFieldKey = keyof typeof ORDER_FIELDS;

const FIELDS = Object.entries(ORDER_FIELDS) as [OrderFieldKey, OrderField][];

/** The keys an API takes, in the table's order. */
export function orderKeys(api: OrderApi): string[] {
  const keys: string[] = [];
  for (const [, f] of FIELDS) {
    const name = f[api];
    if (name !== null && !keys.includes(name)) keys.push(name);
  }
  return keys;
}

/**
 * The one alias table, read for one API: every other name of a field (its name in the other APIs
 * and its aliases) maps to the field's name in `api`. `sizeKey` reads the size fields by their
 * `OrderSize` keys instead (the inside of a request's `size`).
 */
export function orderAliases(api: OrderApi | "sizeKey"): Readonly<Record<string, string>> {
  const valid = new Set(api === "sizeKey" ? [] : orderKeys(api));
  const out: Record<string, string> = {};
  for (const [, f] of FIELDS) {
    const name = api === "sizeKey" ? (f.sizeKind ?? null) : f[api];
    if (name === null) continue;
    for (const spelling of [f.tool, f.option, f.request, ...f.aliases]) {
      if (spelling === null || spelling === name || valid.has(spelling)) continue;
      if (!Object.hasOwn(out, spelling)) out[spelling] = name;
    }
  }
  return out;
}

/**
 * The price rules of an order's type, in the names of `api`: a limit order needs its limit price
 * and no other type takes one; the same for a stop (whose price is easily mistaken for a
 * stop-loss). Each problem names the field it is about.
 */
export function typePriceProblems(
  api: "tool" | "request",
  type: OrderType,
  given: { limitPrice: boolean; stopPrice: boolean },
): { field: string; message: string }[] {
  const limit = ORDER_FIELDS.limitPrice[api];
  const stop = ORDER_FIELDS.stopPrice[api];
  const problems: { field: string; message: string }[] = [];
  if (type === "limit" && !given.limitPrice)
    problems.push({ field: limit, message: `type limit needs ${limit}` });
  if (type !== "limit" && given.limitPrice)
    problems.push({
      field: limit,
      message: `${limit} is only used with type "limit" (type is "${type}")`,
    });
  if (type === "stop" && !given.stopPrice)
    problems.push({ field: stop, message: `type stop needs ${stop}` });
  if (type !== "stop" && given.stopPrice)
    problems.push({
      field: stop,
      message: `${stop} is only used with type "stop" (type is "${type}"); for a protective stop use ${ORDER_FIELDS.stopLoss[api]}`,
    });
  return problems;
}

/** Why `v` is not a value of the field `name` names, or null when it is one. */
export function fieldProblem(key: OrderFieldKey, name: string, v: unknown): string | null {
  const f: OrderField = ORDER_FIELDS[key];
  if (fieldAccepts(f.value, v)) return null;
  const over = f.value.kind === "number" && Number.isFinite(v) && (v as number) > f.value.max;
  return `${name} must be ${over && f.tooBig ? f.tooBig : f.expect} (got ${shown(v)})`;
}

/** `5`, `NaN`, `"10"`: how a bad value reads in a message. */
export const shown = (v: unknown): string =>
  typeof v === "number"
    ? String(v)
    : v === undefined
      ? "nothing"
      : (JSON.stringify(v) ?? String(v));

/** Whether `v` is a value the field takes. */
export function fieldAccepts(value: FieldValue, v: unknown): boolean {
  switch (value.kind) {
    case "number":
      return (
        typeof v === "number" &&
        Number.isFinite(v) &&
        (value.above === undefined || v > value.above) &&
        (value.min === undefined || v >= value.min) &&
        v <= value.max
      );
    case "choice":
      return typeof v === "string" && value.choices.includes(v);
    case "string":
      return typeof v === "string";
    case "tif":
      return isTimeInForce(v);
    default:
      return assertNever(value, "field value");
  }
}

function isTimeInForce(v: unknown): v is TimeInForce {
  if (!isJsonObject(v)) return false;
  const o = v;
  let keys = 0;
  for (const k in o) if (Object.hasOwn(o, k)) keys++;
  if (o.kind === "gtc" || o.kind === "day") return keys === 1;
  return (
    o.kind === "bars" &&
    keys === 2 &&
    typeof o.bars === "number" &&
    Number.isInteger(o.bars) &&
    o.bars >= 1 &&
    o.bars <= MAX_TIF_BARS
  );
}

/** The zod schema of a number field (the LLM tool's parameters are rendered from these). */
function numberSchema(value: Extract<FieldValue, { kind: "number" }>): z.ZodNumber {
  let schema = z.number();
  if (value.above !== undefined) schema = schema.gt(value.above);
  if (value.min !== undefined) schema = schema.min(value.min);
  return schema.max(value.max);
}

/** The zod schema of a field's value as the engine holds it. */
export function fieldSchema(value: FieldValue): z.ZodType {
  switch (value.kind) {
    case "number":
      return numberSchema(value);
    case "choice":
      return z.enum(value.choices);
    case "string":
      return z.string();
    case "tif":
      return z.union([
        z.strictObject({ kind: z.enum(["gtc", "day"]) }),
        z.strictObject({
          kind: z.literal("bars"),
          bars: z.number().int().min(1).max(MAX_TIF_BARS),
        }),
      ]);
    default:
      return assertNever(value, "field value");
  }
}
