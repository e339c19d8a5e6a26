import { assertNever } from "../util/assert-never.js";
import type { BrokerConfig } from "./broker-config.js";
import {
  fieldAccepts,
  MAX_TARGET_WEIGHT,
  ORDER_FIELDS,
  ORDER_TYPES,
  orList,
} from "./order-schema.js";
import { unitStep } from "./sizing.js";
import type { OrderRequest } from "./types.js";

/** What `lenient` reads the run's options as. */
const LENIENT = { fractional: true, allowShort: true } as const;

const positive = (x: number | undefined): boolean => x !== undefined && Number.isFinite(x) && x > 0;

/** Checks an order's shape when it is placed. Returns the reason for rejecting it, or null.
 * Affordability is checked when it fills, against the account at that moment. `lenient`: checks
 * as if fractions and shorts were allowed (the strategy layer's check of a request's shape, which
 * leaves the run's options to the broker), without a copy of the config per order. */
export function validateOrderRequest(
  r: OrderRequest,
  symbolKnown: boolean,
  config: BrokerConfig,
  lenient = false,
): string | null {
  const fractional = lenient || config.fractional;
  if (!symbolKnown) return `unknown symbol ${JSON.stringify(r.symbol)}`;
  const type = r.type ?? "market";
  if (!(ORDER_TYPES as readonly string[]).includes(type)) {
    return `unknown order type ${JSON.stringify(type)}: use ${orList(ORDER_TYPES)}`;
  }
  const size = r.size;
  switch (size.kind) {
    case "qty": {
      if (!positive(size.qty)) return "quantity must be a positive number";
      if (!fractional && !Number.isInteger(size.qty)) {
        return `quantity ${size.qty} is not a whole number of units; pass --fractional to trade fractions`;
      }
      const step = unitStep(fractional ? LENIENT : config);
      if (size.qty < step) {
        return `quantity ${size.qty} is below the smallest tradable step of ${step} units`;
      }
      break;
    }
    case "fraction":
      if (!fieldAccepts(ORDER_FIELDS.fraction.value, size.fraction)) {
        return "fraction of equity must be in (0, 1]";
      }
      break;
    case "weight":
      if (!fieldAccepts(ORDER_FIELDS.weight.value, size.weight)) {
        return `target weight must be a number between -${MAX_TARGET_WEIGHT} and ${MAX_TARGET_WEIGHT}`;
      }
      if (size.weight < 0 && !lenient && !config.allowShort) {
        return "a negative target weight is a short; pass --allow-short to permit shorts";
      }
      break;
    default:
      return assertNever(size, "order size");
  }
  if (size.kind !== "weight" && r.side !== "buy" && r.side !== "sell") {
    return "side must be buy or sell";
  }
  if (type === "limit" && !positive(r.limitPrice))
    return "a limit order needs a positive limit price";
  if (type === "stop" && !positive(r.stopPrice)) return "a stop order needs a positive stop price";
  const tif = r.tif;
  if (tif && !fieldAccepts(ORDER_FIELDS.tif.value, tif)) {
    return `time in force must be ${ORDER_FIELDS.tif.expect}`;
  }
  if (r.stopLoss !== undefined || r.takeProfit !== undefined) {
    if (size.kind === "weight")
      return "brackets need a buy or sell order sized by quantity or fraction";
    if (r.stopLoss !== undefined && !positive(r.stopLoss))
      return "stop-loss must be a positive price";
    if (r.takeProfit !== undefined && !positive(r.takeProfit))
      return "take-profit must be a positive price";
    if (r.stopLoss !== undefined && r.takeProfit !== undefined) {
      const ok = r.side === "buy" ? r.stopLoss < r.takeProfit : r.stopLoss > r.takeProfit;
      if (!ok) {
        return r.side === "buy"
          ? "for a buy bracket the stop-loss must be below the take-profit"
          : "for a sell bracket the stop-loss must be above the take-profit";
      }
    }
  }
  return null;
}
