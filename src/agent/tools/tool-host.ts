import type { TimeInForce } from "../../engine/types.js";
import type { Citation } from "../../strategy/types.js";

/** A validated place_order call, in the broker's terms. Exactly one size is set. */
export interface PlaceOrderArgs {
  symbol: string;
  side: "buy" | "sell";
  type: "market" | "limit" | "stop";
  quantity?: number;
  fractionOfEquity?: number;
  targetWeight?: number;
  limitPrice?: number;
  stopPrice?: number;
  stopLoss?: number;
  takeProfit?: number;
  timeInForce: TimeInForce;
  reason?: string;
}

/**
 * What the tools act on: the backtest at the current bar (read-only market data, the account, the
 * broker) and the run's memory. The runner implements it over the strategy context, so a tool can
 * never see a bar after the decision bar or a path outside the run directory. Every method returns
 * plain JSON-ready data (or a promise of it), or throws an Error whose message is shown to the
 * model; an Error with `fatal: true` is not the model's to handle and ends the run instead.
 */
export interface ToolHost {
  readonly symbols: readonly string[];
  getBars(symbol: string, n: number): unknown;
  getIndicator(name: string, symbol: string, params: Record<string, number>, n: number): unknown;
  getAccount(): unknown;
  placeOrder(args: PlaceOrderArgs): unknown;
  cancelOrder(orderId: number): unknown;
  listOrders(): unknown;
  memoryLog(content: string): unknown;
  memoryNote(key: string, content: string): unknown;
  /** Async: hybrid recall asks an embeddings endpoint. */
  memoryRecall(query: string, limit: number): Citation[] | Promise<Citation[]>;
  /** A tool of the run's memory system other than files (`--memory`), with parsed arguments. */
  memoryUse?(tool: string, args: unknown): unknown;
}
