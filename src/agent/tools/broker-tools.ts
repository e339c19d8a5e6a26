import { z } from "zod";
import { defineTool } from "./tool-definition.js";

const noArguments = z.strictObject({});

export const getAccountTool = defineTool({
  name: "get_account",
  description:
    "Current cash, equity, gross exposure and open positions (quantity, average price, last " +
    "price, unrealised P&L), marked at the current bar's close.",
  parameters: noArguments,
  run: (_args, host) => host.getAccount(),
});

export const listOrdersTool = defineTool({
  name: "list_orders",
  description:
    "Working (not yet filled, cancelled or expired) orders with their ids, including bracket " +
    "children (stop_loss / take_profit). Use an id with cancel_order.",
  parameters: noArguments,
  run: (_args, host) => host.listOrders(),
});

export const cancelOrderTool = defineTool({
  name: "cancel_order",
  description:
    "Cancel one working order by its id (from list_orders or place_order). Fails if the order " +
    "is no longer working.",
  parameters: z.strictObject({
    order_id: z.number().int().min(1).max(1_000_000_000).describe("Id of the working order."),
  }),
  run: (args, host) => host.cancelOrder(args.order_id),
});
