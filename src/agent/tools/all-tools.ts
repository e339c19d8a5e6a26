import type { MemorySystem } from "../../memory/memory-system.js";
import { cancelOrderTool, getAccountTool, listOrdersTool } from "./broker-tools.js";
import { getBarsTool, getIndicatorTool } from "./market-tools.js";
import { FILES_MEMORY_TOOLS, memoryToolsOf } from "./memory-tools.js";
import { placeOrderTool } from "./place-order-tool.js";
import type { ToolDefinition } from "./tool-definition.js";

/** The three memory tools of the files memory, offered alone at memory moments. */
export const MEMORY_TOOLS: readonly ToolDefinition<unknown>[] = FILES_MEMORY_TOOLS;

/** The market and broker tools, first in every trading decision's list. */
const MARKET_TOOLS: readonly ToolDefinition<unknown>[] = [
  getBarsTool,
  getIndicatorTool,
  getAccountTool,
  placeOrderTool,
  cancelOrderTool,
  listOrdersTool,
];

/** Every tool of a files run, offered at a trading decision. The order is stable (it is part of
 * the cached prompt prefix). */
export const TRADING_TOOLS: readonly ToolDefinition<unknown>[] = [...MARKET_TOOLS, ...MEMORY_TOOLS];

const tradingOf = new WeakMap<MemorySystem, readonly ToolDefinition<unknown>[]>();

/** A run's tools: at a trading decision (market, broker, memory) and at a memory moment. */
export function agentTools(system: MemorySystem): {
  trading: readonly ToolDefinition<unknown>[];
  memory: readonly ToolDefinition<unknown>[];
} {
  const memory = memoryToolsOf(system);
  if (memory === MEMORY_TOOLS) return { trading: TRADING_TOOLS, memory };
  let trading = tradingOf.get(system);
  if (trading === undefined) {
    trading = [...MARKET_TOOLS, ...memory];
    tradingOf.set(system, trading);
  }
  return { trading, memory };
}
