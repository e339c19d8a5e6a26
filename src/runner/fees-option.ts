import type { BrokerConfig } from "../engine/broker-config.js";
import { type FeeFunction, type FeeModel, feeFunction } from "../engine/fee-model.js";
import { UsageError } from "../errors/run-errors.js";

/**
 * `backtest()`'s `fees`: a commission function in place of the broker's rate and fixed fee.
 * Both at once would leave it unclear which is charged, so that is refused, as is a non-function.
 */
export function feesOption(
  fees: FeeFunction | undefined,
  broker: Pick<BrokerConfig, "commissionRate" | "commissionFixed">,
): { fees?: FeeModel } {
  if (fees === undefined) return {};
  if (typeof fees !== "function") {
    throw new UsageError(
      `The \`fees\` option must be a function (units, price) => fee (got ${typeof fees}).`,
    );
  }
  if (broker.commissionRate !== 0 || broker.commissionFixed !== 0) {
    throw new UsageError(
      "Give either a `fees` function or broker.commissionRate / commissionFixed, not both: the function replaces them.",
    );
  }
  return { fees: feeFunction(fees) };
}
