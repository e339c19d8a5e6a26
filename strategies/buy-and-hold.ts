import type { Strategy } from "../src/strategy/types.js";

/**
 * Buys every symbol once, with an equal share of equity, at the first bar it trades, and holds.
 * The baseline every other strategy should beat after costs.
 */
const buyAndHold: Strategy<{ bought: Set<string> }> = {
  name: "buy-and-hold",
  description: "Buy each symbol once with an equal share of equity and hold to the end.",
  init: () => ({ bought: new Set<string>() }),
  onBar(ctx, state) {
    const share = 1 / ctx.symbols.length;
    for (const symbol of ctx.symbols) {
      if (state.bought.has(symbol) || ctx.bar(symbol) === null) continue;
      state.bought.add(symbol);
      // Each order takes 1/N of the equity at its own fill, so later fills stay affordable.
      const remaining = ctx.symbols.length - state.bought.size + 1;
      ctx.buy({ symbol, fraction: Math.min(1, share * (ctx.symbols.length / remaining)), tag: "buy and hold" });
    }
  },
};

export default buyAndHold;
