import type { BrokerConfig } from "../engine/broker-config.js";
import type { OrderRequest, OrderSize, Side, TimeInForce } from "../engine/types.js";
import { validateOrderRequest } from "../engine/validate-order.js";
import { firstUnknownKey, guessTail } from "../util/did-you-mean.js";
import { isJsonObject } from "../util/json-object.js";
import { StrategyUsageError } from "./strategy-usage-error.js";
import type { OrderOptions } from "./types.js";

/** The keys of `buy` / `sell` options, in the order the error message lists them. */
const OPTION_KEYS = [
  "symbol",
  "qty",
  "fraction",
  "limit",
  "stop",
  "stopLoss",
  "takeProfit",
  "tif",
  "tag",
] as const satisfies readonly (keyof OrderOptions)[];

/** Spellings from other libraries and from the LLM tool that mean one of our keys. */
const OPTION_ALIASES: Readonly<Record<string, string>> = {
  quantity: "qty",
  size: "qty",
  units: "qty",
  shares: "qty",
  amount: "qty",
  fractionOfEquity: "fraction",
  pct: "fraction",
  percent: "fraction",
  limitPrice: "limit",
  price: "limit",
  stopPrice: "stop",
  sl: "stopLoss",
  tp: "takeProfit",
  timeInForce: "tif",
  reason: "tag",
  ticker: "symbol",
};

const REQUEST_KEYS = [
  "symbol",
  "side",
  "type",
  "size",
  "limitPrice",
  "stopPrice",
  "tif",
  "stopLoss",
  "takeProfit",
  "tag",
] as const satisfies readonly (keyof OrderRequest)[];

const REQUEST_ALIASES: Readonly<Record<string, string>> = {
  qty: "size",
  quantity: "size",
  fraction: "size",
  weight: "size",
  limit: "limitPrice",
  stop: "stopPrice",
  timeInForce: "tif",
  reason: "tag",
};

const SIZE_KEYS: Readonly<Record<OrderSize["kind"], string>> = {
  qty: "qty",
  fraction: "fraction",
  weight: "weight",
};

const NO_SIZE =
  "an order needs a size: give qty (units) or fraction (of equity, 0 < fraction <= 1), " +
  "e.g. ctx.buy({ fraction: 1 }) for all in, or use targetWeight(w)";

/** `5`, `NaN`, `"10"`: how a bad value reads in a message. */
const shown = (v: unknown): string =>
  typeof v === "number"
    ? String(v)
    : v === undefined
      ? "nothing"
      : (JSON.stringify(v) ?? String(v));

function checkKeys(
  what: string,
  value: Record<string, unknown>,
  valid: readonly string[],
  aliases: Readonly<Record<string, string>>,
): void {
  const unknown = firstUnknownKey(value, valid, aliases);
  if (unknown === null) return;
  throw new StrategyUsageError(
    `unknown ${what} ${JSON.stringify(unknown.key)}${guessTail(unknown.guess)} ` +
      `Valid ${what.split(" ").pop()}s: ${valid.join(", ")}.`,
  );
}

function positiveNumber(name: string, v: unknown, what = "number"): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) {
    throw new StrategyUsageError(`${name} must be a finite ${what} > 0 (got ${shown(v)}).`);
  }
  return v;
}

function optionalPrice(name: string, v: unknown): number | undefined {
  return v === undefined ? undefined : positiveNumber(name, v, "price");
}

function checkString(name: string, v: unknown): void {
  if (v !== undefined && typeof v !== "string") {
    throw new StrategyUsageError(`${name} must be a string (got ${shown(v)}).`);
  }
}

function checkTif(v: unknown): void {
  if (v === undefined) return;
  const ok =
    isJsonObject(v) &&
    ((Object.keys(v).length === 1 && (v.kind === "gtc" || v.kind === "day")) ||
      (Object.keys(v).length === 2 &&
        v.kind === "bars" &&
        typeof v.bars === "number" &&
        Number.isInteger(v.bars) &&
        v.bars >= 1));
  if (!ok) {
    throw new StrategyUsageError(
      `tif must be { kind: "gtc" }, { kind: "day" } or { kind: "bars", bars: N } with N a whole number >= 1 (got ${shown(v)}).`,
    );
  }
}

/** Ranges and cross-field rules shared with the broker, as usage errors. The run's options do not
 * make an order malformed: fractions of a unit and shorts are the broker's to refuse (a rejected
 * order with a reason), since they depend on the run, not the code (hence `lenient`). */
function checkWithBroker(request: OrderRequest, config: BrokerConfig): void {
  const problem = validateOrderRequest(request, true, config, true);
  if (problem !== null) throw new StrategyUsageError(`${problem}.`);
}

/**
 * Turns `buy` / `sell` options into an order request, or throws a StrategyUsageError: an unknown
 * key (naming the key that was probably meant), no size or two, a value of the wrong type, a
 * number that is not finite or out of range. A missing size is never read as "all in". The
 * request is its own: its size and tif are frozen objects the options do not share, so the broker
 * keeps them as they are (`Broker.submit`'s `owned`).
 */
export function orderFromOptions(
  side: Side,
  options: unknown,
  defaultSymbol: string,
  config: BrokerConfig,
): OrderRequest {
  if (options === undefined) throw new StrategyUsageError(`${NO_SIZE}.`);
  if (!isJsonObject(options)) {
    throw new StrategyUsageError(
      `order options must be an object such as { qty: 10 } (got ${shown(options)}).`,
    );
  }
  checkKeys("order option", options, OPTION_KEYS, OPTION_ALIASES);
  const o = options as OrderOptions;
  checkString("symbol", o.symbol);
  checkString("tag", o.tag);
  checkTif(o.tif);
  let size: OrderSize;
  if (o.qty !== undefined && o.fraction !== undefined) {
    throw new StrategyUsageError("give one size, qty or fraction, not both.");
  } else if (o.qty !== undefined) {
    size = Object.freeze({ kind: "qty", qty: positiveNumber("qty", o.qty) });
  } else if (o.fraction !== undefined) {
    const f = o.fraction;
    if (typeof f !== "number" || !Number.isFinite(f) || f <= 0 || f > 1) {
      throw new StrategyUsageError(`fraction must be a finite number in (0, 1] (got ${shown(f)}).`);
    }
    size = Object.freeze({ kind: "fraction", fraction: f });
  } else {
    throw new StrategyUsageError(`${NO_SIZE}.`);
  }
  const limit = optionalPrice("limit", o.limit);
  const stop = optionalPrice("stop", o.stop);
  const stopLoss = optionalPrice("stopLoss", o.stopLoss);
  const takeProfit = optionalPrice("takeProfit", o.takeProfit);
  if (limit !== undefined && stop !== undefined) {
    throw new StrategyUsageError(
      "give limit or stop, not both (stop-limit orders are not supported).",
    );
  }
  const type = limit !== undefined ? "limit" : stop !== undefined ? "stop" : "market";
  const request: OrderRequest = { symbol: o.symbol ?? defaultSymbol, side, type, size };
  if (limit !== undefined) request.limitPrice = limit;
  if (stop !== undefined) request.stopPrice = stop;
  if (stopLoss !== undefined) request.stopLoss = stopLoss;
  if (takeProfit !== undefined) request.takeProfit = takeProfit;
  // The strategy's object: copied, as the broker copies a request it does not own.
  if (o.tif !== undefined) request.tif = Object.freeze({ ...(o.tif as TimeInForce) });
  if (o.tag !== undefined) request.tag = o.tag;
  checkWithBroker(request, config);
  return request;
}

/** A target-weight order; the weight must be a finite number in the broker's range. The request
 * is its own, its size frozen (as `orderFromOptions`'). */
export function orderForWeight(
  weight: unknown,
  symbol: string,
  config: BrokerConfig,
): OrderRequest {
  if (typeof weight !== "number" || !Number.isFinite(weight) || Math.abs(weight) > 10) {
    throw new StrategyUsageError(
      `target weight must be a finite number between -10 and 10 (got ${shown(weight)}).`,
    );
  }
  const request: OrderRequest = { symbol, size: Object.freeze({ kind: "weight", weight }) };
  checkWithBroker(request, config);
  return request;
}

/** Checks a raw `ctx.order(request)` as strictly as `buy` / `sell` options. */
export function checkOrderRequest(request: unknown, config: BrokerConfig): OrderRequest {
  if (!isJsonObject(request)) {
    throw new StrategyUsageError(`an order request must be an object (got ${shown(request)}).`);
  }
  checkKeys("order field", request, REQUEST_KEYS, REQUEST_ALIASES);
  const size = request.size;
  if (size === undefined) throw new StrategyUsageError(`${NO_SIZE}.`);
  const kind = isJsonObject(size) ? size.kind : undefined;
  if (!isJsonObject(size) || (kind !== "qty" && kind !== "fraction" && kind !== "weight")) {
    throw new StrategyUsageError(
      `size must be { kind: "qty", qty }, { kind: "fraction", fraction } or { kind: "weight", weight } (got ${shown(size)}).`,
    );
  }
  checkKeys("size field", size, ["kind", SIZE_KEYS[kind]], { quantity: "qty" });
  const amount = size[SIZE_KEYS[kind]];
  if (typeof amount !== "number" || !Number.isFinite(amount)) {
    throw new StrategyUsageError(
      `size.${SIZE_KEYS[kind]} must be a finite number (got ${shown(amount)}).`,
    );
  }
  if (typeof request.symbol !== "string")
    throw new StrategyUsageError(`symbol must be a string (got ${shown(request.symbol)}).`);
  checkString("tag", request.tag);
  checkTif(request.tif);
  for (const key of ["limitPrice", "stopPrice", "stopLoss", "takeProfit"] as const)
    optionalPrice(key, request[key]);
  const r = request as unknown as OrderRequest;
  const type = r.type ?? "market";
  if (r.limitPrice !== undefined && type !== "limit")
    throw new StrategyUsageError(`limitPrice is only used with type "limit" (type is "${type}").`);
  if (r.stopPrice !== undefined && type !== "stop")
    throw new StrategyUsageError(`stopPrice is only used with type "stop" (type is "${type}").`);
  checkWithBroker(r, config);
  return r;
}
