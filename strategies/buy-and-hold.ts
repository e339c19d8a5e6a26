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
    // The cash still free is shared equally by the symbols not yet bought, counted before this
    // bar: orders fill at the next open, so two symbols starting together must not both count
    // the same cash. 0.5 % is left as room for the overnight move of positions already held
    // (fraction sizing uses equity at the fill).
    const remaining = ctx.symbols.length - state.bought.size;
    const headroom = state.bought.size > 0 ? 0.995 : 1;
    const share = ctx.cash / remaining / ctx.equity;
    for (const symbol of ctx.symbols) {
      if (state.bought.has(symbol) || ctx.bar(symbol) === null) continue;
      state.bought.add(symbol);
      ctx.buy({ symbol, fraction: Math.min(1, share * headroom), tag: "buy and hold" });
    }
  },
};

export default buyAndHold;
