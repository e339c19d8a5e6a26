import type { BrokerConfig } from "./broker-config.js";
import type { OrderType, Side } from "./types.js";

export interface BarPrices {
  open: number;
  high: number;
  low: number;
  close: number;
}

export interface PriceMatch {
  /** Price before slippage. */
  price: number;
  /** "open" (market), "limit" / "stop" (filled at the order's price), "gap" (the bar opened
   * through the order's price, so it filled at the better or worse open). */
  basis: "open" | "limit" | "stop" | "gap";
}

/**
 * Where an order would fill within one bar, assuming the path open → high → low → close.
 * `reference` is the price the order first sees: the bar's open, or for a bracket child activated
 * inside this bar, the entry's fill price (the open was before the entry, so no gap applies).
 * Returns null when the order does not fill in this bar.
 */
export function matchPrice(
  type: OrderType,
  side: Side,
  limitPrice: number | null,
  stopPrice: number | null,
  bar: BarPrices,
  reference: number,
): PriceMatch | null {
  if (type === "market") return { price: reference, basis: "open" };
  if (type === "limit") {
    const limit = limitPrice as number;
    if (side === "buy") {
      if (bar.low > limit) return null;
      return reference < limit
        ? { price: reference, basis: "gap" }
        : { price: limit, basis: "limit" };
    }
    if (bar.high < limit) return null;
    return reference > limit
      ? { price: reference, basis: "gap" }
      : { price: limit, basis: "limit" };
  }
  const stop = stopPrice as number;
  if (side === "buy") {
    if (bar.high < stop) return null;
    return reference > stop ? { price: reference, basis: "gap" } : { price: stop, basis: "stop" };
  }
  if (bar.low > stop) return null;
  return reference < stop ? { price: reference, basis: "gap" } : { price: stop, basis: "stop" };
}

/** Slippage is always adverse: buyers pay more, sellers receive less. Limit fills get none, since
 * a limit order by definition never fills worse than its limit. */
export function applySlippage(
  price: number,
  side: Side,
  type: OrderType,
  config: BrokerConfig,
): number {
  if (type === "limit") return price;
  const delta =
    config.slippageTicks > 0 ? config.slippageTicks * config.tickSize : price * config.slippageRate;
  if (delta === 0) return price;
  return side === "buy" ? price + delta : Math.max(price - delta, Number.MIN_VALUE);
}

/** Commission on one fill: a fraction of notional, plus the fixed fee on the order's first fill. */
export function commissionFor(
  qty: number,
  price: number,
  firstFill: boolean,
  config: BrokerConfig,
): number {
  return qty * price * config.commissionRate + (firstFill ? config.commissionFixed : 0);
}
