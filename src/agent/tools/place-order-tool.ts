import { z } from "zod";
import type { TimeInForce } from "../../engine/types.js";
import { didYouMean } from "../../util/did-you-mean.js";
import { plainText } from "../../util/plain-text.js";
import { resolveSymbol, symbolParameter } from "./resolve-symbol.js";
import { defineTool } from "./tool-definition.js";
import type { PlaceOrderArgs } from "./tool-host.js";

/**
 * Largest quantity or price an order may state. Far above any real instrument (a price of 1e12, or
 * 1e12 units), yet small enough that quantity × price stays exact enough in a double and finite:
 * 1e308 passes `positive()` and would otherwise reach the broker as a real order.
 */
export const MAX_ORDER_NUMBER = 1e12;

const priceParameter = (what: string) => z.number().positive().max(MAX_ORDER_NUMBER).describe(what);

/** Names a model may borrow from elsewhere (the code strategy API, other brokers' APIs). */
const PARAMETER_ALIASES: Readonly<Record<string, string>> = {
  qty: "quantity",
  size: "quantity",
  units: "quantity",
  shares: "quantity",
  amount: "quantity",
  fraction: "fraction_of_equity",
  weight: "target_weight",
  limit: "limit_price",
  price: "limit_price",
  stop: "stop_price",
  tif: "time_in_force",
  tag: "reason",
  ticker: "symbol",
};

/** An unknown key names the parameter it probably meant (a misspelled size must never pass). */
function unknownKeyMessage(keys: readonly PropertyKey[]): string {
  const valid = Object.keys(placeOrderShape);
  return keys
    .map((key) => {
      const name = String(key);
      const guess = didYouMean(name, valid, PARAMETER_ALIASES);
      return `unknown parameter ${JSON.stringify(name)}${guess ? `: did you mean ${JSON.stringify(guess)}?` : "."}`;
    })
    .concat(`Valid parameters: ${valid.join(", ")}.`)
    .join(" ");
}

const placeOrderShape = {
  symbol: symbolParameter,
  side: z
    .enum(["buy", "sell"])
    .optional()
    .describe(
      "buy or sell. Required with quantity or fraction_of_equity; ignored with target_weight.",
    ),
  type: z
    .enum(["market", "limit", "stop"])
    .default("market")
    .describe(
      "market (default): fills at the next bar's open. limit: buy fills at or below limit_price, " +
        "sell at or above. stop: buy triggers at or above stop_price, sell at or below.",
    ),
  quantity: z
    .number()
    .positive()
    .max(MAX_ORDER_NUMBER)
    .optional()
    .describe("Size in units (shares, coins), > 0."),
  fraction_of_equity: z
    .number()
    .positive()
    .max(1)
    .optional()
    .describe(
      "Size as a fraction of current equity, 0 < f <= 1 (0.25 = a quarter); converted to whole " +
        "units at the fill price.",
    ),
  target_weight: z
    .number()
    .min(-10)
    .max(10)
    .optional()
    .describe(
      "Trade to this position weight of equity, -10..10 (1 = fully long, 0 = flat, -0.5 = " +
        "half short); buys or sells the difference, so side is ignored.",
    ),
  limit_price: priceParameter(
    "Limit price; required for and only allowed with type limit.",
  ).optional(),
  stop_price: priceParameter(
    "Stop trigger price; required for and only allowed with type stop.",
  ).optional(),
  stop_loss: priceParameter(
    "Absolute price of a protective stop, placed once this order fills (bracket, OCO with take_profit).",
  ).optional(),
  take_profit: priceParameter(
    "Absolute price of a profit-taking limit, placed once this order fills (bracket, OCO with stop_loss).",
  ).optional(),
  time_in_force: z
    .union([z.enum(["gtc", "day"]), z.number().int().min(1).max(100_000)])
    .default("gtc")
    .describe(
      'How long the order works: "gtc" until filled or cancelled (default), "day" until the end ' +
        "of its first trading day, or a number of bars.",
    ),
  reason: plainText(0, 500)
    .optional()
    .describe("Why, in one sentence (<= 500 characters); kept in the order records."),
};

const placeOrderFields = z.strictObject(placeOrderShape, {
  error: (issue) =>
    issue.code === "unrecognized_keys" ? unknownKeyMessage(issue.keys) : undefined,
});

type PlaceOrderInput = z.output<typeof placeOrderFields>;

/** Cross-field rules; they run only once every field has the right type. */
function checkPlaceOrder(args: PlaceOrderInput, ctx: z.RefinementCtx): void {
  const sizes = (["quantity", "fraction_of_equity", "target_weight"] as const).filter(
    (key) => args[key] !== undefined,
  );
  if (sizes.length !== 1) {
    ctx.addIssue({
      code: "custom",
      path: sizes.length === 0 ? [] : [sizes[1]!],
      message:
        sizes.length === 0
          ? "give exactly one size: quantity, fraction_of_equity or target_weight"
          : `give exactly one size, got ${sizes.join(" and ")}`,
    });
  }
  if (args.side === undefined && args.target_weight === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["side"],
      message: 'side ("buy" or "sell") is required unless target_weight is given',
    });
  }
  if (args.type === "limit" && args.limit_price === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["limit_price"],
      message: "type limit needs limit_price",
    });
  }
  if (args.type !== "limit" && args.limit_price !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["limit_price"],
      message: `limit_price is only used with type "limit" (type is "${args.type}")`,
    });
  }
  if (args.type === "stop" && args.stop_price === undefined) {
    ctx.addIssue({ code: "custom", path: ["stop_price"], message: "type stop needs stop_price" });
  }
  if (args.type !== "stop" && args.stop_price !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["stop_price"],
      message: `stop_price is only used with type "stop" (type is "${args.type}"); for a protective stop use stop_loss`,
    });
  }
}

function toTimeInForce(value: PlaceOrderInput["time_in_force"]): TimeInForce {
  if (value === "gtc") return { kind: "gtc" };
  if (value === "day") return { kind: "day" };
  return { kind: "bars", bars: value };
}

/** snake_case (the model's) to camelCase (the broker's); absent optionals stay absent. */
function toPlaceOrderArgs(args: PlaceOrderInput): PlaceOrderArgs {
  const out: PlaceOrderArgs = {
    symbol: args.symbol,
    // With target_weight the side is ignored by the broker; the sign is the natural reading.
    side: args.side ?? ((args.target_weight ?? 0) < 0 ? "sell" : "buy"),
    type: args.type,
    timeInForce: toTimeInForce(args.time_in_force),
  };
  if (args.quantity !== undefined) out.quantity = args.quantity;
  if (args.fraction_of_equity !== undefined) out.fractionOfEquity = args.fraction_of_equity;
  if (args.target_weight !== undefined) out.targetWeight = args.target_weight;
  if (args.limit_price !== undefined) out.limitPrice = args.limit_price;
  if (args.stop_price !== undefined) out.stopPrice = args.stop_price;
  if (args.stop_loss !== undefined) out.stopLoss = args.stop_loss;
  if (args.take_profit !== undefined) out.takeProfit = args.take_profit;
  if (args.reason !== undefined) out.reason = args.reason;
  return out;
}

export const placeOrderTool = defineTool<PlaceOrderArgs>({
  name: "place_order",
  description:
    "Submit an order for one symbol. Give exactly one size: quantity, fraction_of_equity or " +
    "target_weight. Orders placed now can fill from the next bar on (market orders at its open). " +
    "Optional stop_loss / take_profit attach a bracket. Returns {orderId, status} and a reason " +
    "when rejected (e.g. not enough cash). To close a position use target_weight 0.",
  parameters: placeOrderFields.superRefine(checkPlaceOrder).transform(toPlaceOrderArgs),
  run: (args, host) => host.placeOrder({ ...args, symbol: resolveSymbol(host, args.symbol) }),
});
