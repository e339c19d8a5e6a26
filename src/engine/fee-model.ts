import type { BrokerConfig } from "./broker-config.js";

/** A user's commission: the fee of one fill of `units` (> 0) at `price` per unit, in money. */
export type FeeFunction = (units: number, price: number) => number;

/**
 * What a fill costs in commission. The broker asks it on every fill, and sizing (fraction and
 * weight orders) asks it for the largest size a budget pays for, fees included.
 */
export interface FeeModel {
  /** Commission on one fill of `units` at `price`; `firstFill`: the order's first fill. */
  commission(units: number, price: number, firstFill: boolean): number;
  /**
   * Set when the commission is `rate × units × price`, plus `fixed` on an order's first fill:
   * sizing then solves the budget in closed form. Null: sizing searches the unit grid, and every
   * fee is checked (a NaN, infinite or negative fee fails the run, `FeeModelError`).
   */
  readonly linear: { readonly rate: number; readonly fixed: number } | null;
}

/** The default: `--commission` (a rate of notional) and `--commission-fixed` (once per order). */
export function brokerFees(
  config: Pick<BrokerConfig, "commissionRate" | "commissionFixed">,
): FeeModel {
  const rate = config.commissionRate;
  const fixed = config.commissionFixed;
  return {
    commission: (units, price, firstFill) => units * price * rate + (firstFill ? fixed : 0),
    linear: { rate, fixed },
  };
}

/** A fee function as the model: called once per fill, whatever the order's earlier fills. */
export function feeFunction(fee: FeeFunction): FeeModel {
  return { commission: (units, price) => fee(units, price), linear: null };
}

/**
 * A fee function answered something that is not a fee. Charging it would poison the account (NaN)
 * or pay the strategy for trading (a negative fee), so the run stops and names the order.
 */
export class FeeModelError extends Error {
  override readonly name = "FeeModelError";
  constructor(
    readonly orderId: number,
    readonly units: number,
    readonly price: number,
    readonly fee: unknown,
  ) {
    super(
      `the fee function returned ${typeof fee === "number" ? fee : (JSON.stringify(fee) ?? String(fee))} for order ${orderId} (${units} units at ${price}): a fee must be a finite number >= 0. Fix the commission function passed as \`fees\`.`,
    );
  }
}
