import type { IndicatorView, Strategy } from "agenticbt";

interface State {
  rsi: IndicatorView;
  trend: IndicatorView;
  entryRsi: number | null;
}

const fmt = (x: number | null, d = 2) => (x === null ? "n/a" : x.toFixed(d));

/**
 * RSI mean reversion with a trend filter: buy an oversold dip above the long-term average, sell
 * when RSI recovers or the stop-loss fills. Keeps a journal and a position note like a trader:
 * why it entered, what it holds, how each trade ended, and a review at every month end.
 */
const rsiReversion: Strategy<State> = {
  name: "rsi-reversion",
  description:
    "Buy when RSI is oversold while price is above its long-term SMA; sell when RSI recovers. A stop-loss below the entry caps each loss.",
  params: { period: 14, oversold: 30, exit: 55, trendPeriod: 200, stopPct: 8 },
  init(ctx) {
    return {
      rsi: ctx.indicator("rsi", { period: Number(ctx.params.period) }),
      trend: ctx.indicator("sma", { period: Number(ctx.params.trendPeriod) }),
      entryRsi: null,
    };
  },
  onBar(ctx, state) {
    const rsi = state.rsi.value;
    const trend = state.trend.value;
    const close = ctx.close();
    if (rsi === null || trend === null || close === null) return;
    const held = ctx.position();
    if (
      held === 0 &&
      ctx.orders().length === 0 &&
      rsi < Number(ctx.params.oversold) &&
      close > trend
    ) {
      const stopLoss = close * (1 - Number(ctx.params.stopPct) / 100);
      ctx.buy({
        fraction: 1,
        stopLoss,
        tag: `RSI ${fmt(rsi)} oversold above SMA${ctx.params.trendPeriod}`,
      });
      state.entryRsi = rsi;
      ctx.log(
        `Signal: RSI ${fmt(rsi)} < ${ctx.params.oversold} with close ${fmt(close)} above the ${ctx.params.trendPeriod}-bar SMA ${fmt(trend)}. Buying at the next open, stop-loss ${fmt(stopLoss)}.`,
      );
    } else if (held > 0 && rsi > Number(ctx.params.exit)) {
      // Cancel the protective stop first, then exit at the next open.
      for (const o of ctx.orders()) if (o.parentId !== null) ctx.cancel(o.id);
      ctx.closePosition();
      ctx.log(
        `Exit signal: RSI ${fmt(rsi)} recovered above ${ctx.params.exit}. Selling at the next open.`,
      );
    }
  },
  onFill(ctx, fill, state) {
    const held = ctx.position(fill.symbol);
    if (held > 0) {
      ctx.note(
        `position_${fill.symbol}`,
        [
          `# Position ${fill.symbol}`,
          "",
          `- Long ${held} units, average price ${fmt(fill.price)} (bought ${ctx.timeLabel}).`,
          `- Entry RSI ${fmt(state.entryRsi)}; exit when RSI > ${ctx.params.exit}.`,
          `- Stop-loss ${ctx.params.stopPct}% below the signal close.`,
        ].join("\n"),
      );
    }
  },
  onTradeClosed(ctx, trade) {
    const outcome = trade.pnl >= 0 ? "win" : "loss";
    ctx.log(
      `Closed ${trade.side} ${trade.symbol}: ${trade.qty} units ${fmt(trade.entryPrice)} → ${fmt(trade.exitPrice)}, P&L ${fmt(trade.pnl)} (${fmt(trade.returnPct * 100)}%), a ${outcome}.`,
    );
    ctx.note(
      `position_${trade.symbol}`,
      `# Position ${trade.symbol}\n\nFlat since ${ctx.timeLabel}. Last trade: ${outcome}, ${fmt(trade.returnPct * 100)}%.`,
    );
  },
  onMonthEnd(ctx, month) {
    const a = ctx.account();
    ctx.review(
      "month",
      [
        `# Review ${month}`,
        "",
        `- Equity ${fmt(a.equity)}, cash ${fmt(a.cash)}.`,
        `- Positions: ${a.positions.length ? a.positions.map((p) => `${p.symbol} ${p.qty}`).join(", ") : "none"}.`,
      ].join("\n"),
    );
  },
};

export default rsiReversion;
