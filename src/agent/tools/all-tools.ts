import { cancelOrderTool, getAccountTool, listOrdersTool } from "./broker-tools.js";
import { getBarsTool, getIndicatorTool } from "./market-tools.js";
import { memoryLogTool, memoryNoteTool, memoryRecallTool } from "./memory-tools.js";
import { placeOrderTool } from "./place-order-tool.js";
import type { ToolDefinition } from "./tool-definition.js";

/** The three memory tools, offered alone at memory moments (reviews, position notes). */
export const MEMORY_TOOLS: readonly ToolDefinition<unknown>[] = [
  memoryLogTool,
  memoryNoteTool,
  memoryRecallTool,
];

/** Every tool, offered at a trading decision. The order is stable (it is part of the cached
 * prompt prefix). */
export const TRADING_TOOLS: readonly ToolDefinition<unknown>[] = [
  getBarsTool,
  getIndicatorTool,
  getAccountTool,
  placeOrderTool,
  cancelOrderTool,
  listOrdersTool,
  ...MEMORY_TOOLS,
];
