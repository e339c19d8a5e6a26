import type { BrokerConfig } from "../engine/broker-config.js";
import {
  fieldProblem,
  type OrderFieldKey,
  orderAliases,
  orderKeys,
  shown,
  typePriceProblems,
} from "../engine/order-schema.js";
import type { OrderRequest, OrderSize, Side, TimeInForce } from "../engine/types.js";
import { validateOrderRequest } from "../engine/validate-order.js";
import { firstUnknownKey, guessTail } from "../util/did-you-mean.js";
import { isJsonObject } from "../util/json-object.js";
import { StrategyUsageError } from "./strategy-usage-error.js";
import type { OrderOptions } from "./types.js";

/** The keys of `buy` / `sell` options and of a raw request, in the order messages list them,
 * and the other spellings that lead to them (one alias table, the engine's). */
const OPTION_KEYS = orderKeys("option");
const OPTION_ALIASES = orderAliases("option");
const REQUEST_KEYS = orderKeys("request");
const REQUEST_ALIASES = orderAliases("request");
const SIZE_ALIASES = orderAliases("sizeKey");

/** The order field each size kind is. */
const SIZE_FIELDS: Readonly<Record<OrderSize["kind"], OrderFieldKey>> = {
  qty: "quantity",
  fraction: "fraction",
  weight: "weight",
};

const NO_SIZE =
  "an order needs a size: give qty (units) or fraction (of equity, 0 < fraction <= 1), " +
  "e.g. ctx.buy({ fraction: 1 }) for all in, or use targetWeight(w)";

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

/** The field's range and type, the same the LLM tool's schema states, as a usage error. */
function checkField(key: OrderFieldKey, name: string, v: unknown): void {
  const problem = fieldProblem(key, name, v);
  if (problem !== null) throw new StrategyUsageError(`${problem}.`);
}

/** An optional field: absent is fine. */
function checkOptional(key: OrderFieldKey, name: string, v: unknown): void {
  if (v !== undefined) checkField(key, name, v);
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
  checkOptional("symbol", "symbol", o.symbol);
  checkOptional("tag", "tag", o.tag);
  checkOptional("tif", "tif", o.tif);
  let size: OrderSize;
  if (o.qty !== undefined && o.fraction !== undefined) {
    throw new StrategyUsageError("give one size, qty or fraction, not both.");
  } else if (o.qty !== undefined) {
    checkField("quantity", "qty", o.qty);
    size = Object.freeze({ kind: "qty", qty: o.qty });
  } else if (o.fraction !== undefined) {
    checkField("fraction", "fraction", o.fraction);
    size = Object.freeze({ kind: "fraction", fraction: o.fraction });
  } else {
    throw new StrategyUsageError(`${NO_SIZE}.`);
  }
  const { limit, stop, stopLoss, takeProfit } = o;
  checkOptional("limitPrice", "limit", limit);
  checkOptional("stopPrice", "stop", stop);
  checkOptional("stopLoss", "stopLoss", stopLoss);
  checkOptional("takeProfit", "takeProfit", takeProfit);
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
  checkField("weight", "target weight", weight);
  const request: OrderRequest = {
    symbol,
    size: Object.freeze({ kind: "weight", weight: weight as number }),
  };
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
  checkKeys("size field", size, ["kind", kind], SIZE_ALIASES);
  checkField(SIZE_FIELDS[kind], `size.${kind}`, size[kind]);
  checkField("symbol", "symbol", request.symbol);
  checkOptional("side", "side", request.side);
  checkOptional("type", "type", request.type);
  checkOptional("tag", "tag", request.tag);
  checkOptional("tif", "tif", request.tif);
  for (const key of ["limitPrice", "stopPrice", "stopLoss", "takeProfit"] as const)
    checkOptional(key, key, request[key]);
  const r = request as unknown as OrderRequest;
  const given = { limitPrice: r.limitPrice !== undefined, stopPrice: r.stopPrice !== undefined };
  const [problem] = typePriceProblems("request", r.type ?? "market", given);
  if (problem !== undefined) throw new StrategyUsageError(`${problem.message}.`);
  checkWithBroker(r, config);
  return r;
}
