import { z } from "zod";
import {
  fieldSchema,
  MAX_REASON_CHARS,
  MAX_TIF_BARS,
  ORDER_FIELDS,
  type OrderField,
  type OrderFieldKey,
  orderAliases,
  orderKeys,
  orList,
  typePriceProblems,
} from "../../engine/order-schema.js";
import type { OrderType, Side, TimeInForce } from "../../engine/types.js";
import { didYouMean } from "../../util/did-you-mean.js";
import { plainText } from "../../util/plain-text.js";
import { resolveSymbol, symbolParameter } from "./resolve-symbol.js";
import { defineTool } from "./tool-definition.js";
import type { PlaceOrderArgs } from "./tool-host.js";

/** The tool's parameters: the engine's order fields under their snake_case names. */
const TOOL_KEYS = orderKeys("tool");
const TOOL_ALIASES = orderAliases("tool");

/** An unknown key names the parameter it probably meant (a misspelled size must never pass). */
function unknownKeyMessage(keys: readonly PropertyKey[]): string {
  return keys
    .map((key) => {
      const name = String(key);
      const guess = didYouMean(name, TOOL_KEYS, TOOL_ALIASES);
      return `unknown parameter ${JSON.stringify(name)}${guess ? `: did you mean ${JSON.stringify(guess)}?` : "."}`;
    })
    .concat(`Valid parameters: ${TOOL_KEYS.join(", ")}.`)
    .join(" ");
}

/** Where the model writes a field in a form of its own: a time in force as "gtc", "day" or a
 * number of bars, a reason as plain text of bounded length, a symbol as any tool takes it. */
const WIRE_FORMS: Partial<Record<OrderFieldKey, z.ZodType>> = {
  symbol: symbolParameter,
  tif: z.union([z.enum(["gtc", "day"]), z.number().int().min(1).max(MAX_TIF_BARS)]),
  tag: plainText(0, MAX_REASON_CHARS),
};
/** The one parameter the model must give. */
const REQUIRED: readonly OrderFieldKey[] = ["symbol"];
/** What the model may leave out and gets: the engine's defaults, in the tool's form. */
const WIRE_DEFAULTS: Partial<Record<OrderFieldKey, unknown>> = { type: "market", tif: "gtc" };

/** Every order field as a parameter: a field added to ORDER_FIELDS appears here too. */
const placeOrderShape = Object.fromEntries(
  (Object.entries(ORDER_FIELDS) as [OrderFieldKey, OrderField][]).map(([key, f]) => {
    const base = WIRE_FORMS[key] ?? fieldSchema(f.value);
    const given = Object.hasOwn(WIRE_DEFAULTS, key)
      ? base.default(WIRE_DEFAULTS[key] as never)
      : REQUIRED.includes(key)
        ? base
        : base.optional();
    return [f.tool, given.describe(f.help)];
  }),
);

/** The parameters once parsed (defaults filled). */
interface PlaceOrderInput {
  symbol: string;
  side?: Side;
  type: OrderType;
  quantity?: number;
  fraction_of_equity?: number;
  target_weight?: number;
  limit_price?: number;
  stop_price?: number;
  stop_loss?: number;
  take_profit?: number;
  time_in_force: "gtc" | "day" | number;
  reason?: string;
}

// Compile-time: a field added to ORDER_FIELDS is a type error here until the tool reads it too.
const everyField: Exclude<
  (typeof ORDER_FIELDS)[OrderFieldKey]["tool"],
  keyof PlaceOrderInput
> extends never
  ? true
  : never = true;
void everyField;

const placeOrderFields = z.strictObject(placeOrderShape, {
  error: (issue) =>
    issue.code === "unrecognized_keys" ? unknownKeyMessage(issue.keys) : undefined,
}) as unknown as z.ZodType<PlaceOrderInput>;

/** The size parameters, in the table's order. */
const SIZE_KEYS = Object.values(ORDER_FIELDS as Record<string, OrderField>)
  .filter((f) => f.sizeKind !== undefined)
  .map((f) => f.tool);

/** Cross-field rules; they run only once every field has the right type. */
function checkPlaceOrder(args: PlaceOrderInput, ctx: z.RefinementCtx): void {
  const given = args as unknown as Record<string, unknown>;
  const sizes = SIZE_KEYS.filter((key) => given[key] !== undefined);
  if (sizes.length !== 1) {
    ctx.addIssue({
      code: "custom",
      path: sizes.length === 0 ? [] : [sizes[1]!],
      message:
        sizes.length === 0
          ? `give exactly one size: ${orList(SIZE_KEYS)}`
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
  const prices = {
    limitPrice: args.limit_price !== undefined,
    stopPrice: args.stop_price !== undefined,
  };
  for (const { field, message } of typePriceProblems("tool", args.type, prices))
    ctx.addIssue({ code: "custom", path: [field], message });
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
