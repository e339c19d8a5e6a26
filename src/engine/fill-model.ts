import { assertNever } from "../util/assert-never.js";
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
 * Where an order fills within a bar and at what price after slippage: the rules of
 * docs/fill-conventions.md. The broker keeps everything else (timing, sizing, cash, brackets).
 */
export interface FillModel {
  /**
   * Where an order would fill within one bar, or null when it does not fill in this bar.
   * `reference` is the price the order first sees: the bar's open, or for a bracket child
   * activated inside this bar, the entry's fill price (the open was before the entry).
   */
  match(
    type: OrderType,
    side: Side,
    limitPrice: number | null,
    stopPrice: number | null,
    bar: BarPrices,
    reference: number,
  ): PriceMatch | null;
  /** The price paid or received once slippage is applied to `price`. */
  slip(price: number, side: Side, type: OrderType, config: BrokerConfig): number;
}

/** The default rules: the intra-bar path open → high → low → close, adverse slippage. */
export const DEFAULT_FILL_MODEL: FillModel = { match: matchPrice, slip: applySlippage };

/** Where an order would fill within one bar, assuming the path open → high → low → close. */
export function matchPrice(
  type: OrderType,
  side: Side,
  limitPrice: number | null,
  stopPrice: number | null,
  bar: BarPrices,
  reference: number,
): PriceMatch | null {
  switch (type) {
    case "market":
      return { price: reference, basis: "open" };
    case "limit": {
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
    case "stop": {
      const stop = stopPrice as number;
      if (side === "buy") {
        if (bar.high < stop) return null;
        return reference > stop
          ? { price: reference, basis: "gap" }
          : { price: stop, basis: "stop" };
      }
      if (bar.low > stop) return null;
      return reference < stop ? { price: reference, basis: "gap" } : { price: stop, basis: "stop" };
    }
    default:
      return assertNever(type, "order type");
  }
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
