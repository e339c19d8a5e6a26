import type { Strategy } from "agenticbt";

/**
 * Buys every symbol once, with an equal share of equity, at the first bar it trades, and holds.
 * The baseline every other strategy should beat after costs.
 */
const buyAndHold: Strategy<{ bought: Set<string> }> = {
  name: "buy-and-hold",
  description: "Buy each symbol once with an equal share of equity and hold to the end.",
  init: () => ({ bought: new Set<string>() }),
  onBar(ctx, state) {
    for (const symbol of ctx.symbols) {
      if (state.bought.has(symbol) || ctx.bar(symbol) === null) continue;
      // Symbols that start later share the cash still free; 0.5 % is left as room for the
      // overnight move of positions already held (fraction sizing uses equity at the fill).
      const remaining = ctx.symbols.length - state.bought.size;
      state.bought.add(symbol);
      const headroom = state.bought.size > 1 ? 0.995 : 1;
      const fraction = Math.min(1, (ctx.cash / remaining / ctx.equity) * headroom);
      ctx.buy({ symbol, fraction, tag: "buy and hold" });
    }
  },
};

export default buyAndHold;
