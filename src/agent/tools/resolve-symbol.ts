import { z } from "zod";
import { ORDER_FIELDS } from "../../engine/order-schema.js";
import { quote } from "./clip-text.js";
import type { ToolHost } from "./tool-host.js";

const MAX_LISTED = 50;

/**
 * The run's spelling of `symbol`. An exact match wins; otherwise a unique case-insensitive match
 * is accepted (models write "aapl" as often as "AAPL"). Anything else throws a message that lists
 * the valid symbols, so the model can correct itself in one step.
 */
export function resolveSymbol(host: ToolHost, symbol: string): string {
  if (host.symbols.includes(symbol)) return symbol;
  const folded = symbol.trim().toUpperCase();
  const matches = host.symbols.filter((s) => s.toUpperCase() === folded);
  if (matches.length === 1) return matches[0]!;
  const listed = host.symbols.slice(0, MAX_LISTED).join(", ");
  const more = host.symbols.length > MAX_LISTED ? `, … (${host.symbols.length} in all)` : "";
  throw new Error(`Unknown symbol ${quote(symbol)}. Valid symbols: ${listed}${more}.`);
}

/** The `symbol` argument of every tool that takes one; membership is checked at run time. */
export const symbolParameter = z.string().min(1).max(100).describe(ORDER_FIELDS.symbol.help);
