import type { ClosedTrade } from "../engine/types.js";
import { MS_PER_DAY } from "./annualisation.js";
import { because, type Computed } from "./computed.js";
import { geometricMean, mean } from "./returns.js";

export interface TradeStats {
  trades: number;
  winRatePct: Computed;
  bestTradePct: Computed;
  worstTradePct: Computed;
  avgTradePct: Computed;
  maxTradeDurationDays: Computed;
  avgTradeDurationDays: Computed;
  profitFactor: Computed;
  expectancyPct: Computed;
  sqn: Computed;
  kellyCriterion: Computed;
}

const NO_TRADES = because("no closed trades");

/** Per-trade statistics following backtesting.py's compute_stats. */
export function computeTradeStats(trades: readonly ClosedTrade[]): TradeStats {
  const n = trades.length;
  if (n === 0) {
    return {
      trades: 0,
      winRatePct: NO_TRADES,
      bestTradePct: NO_TRADES,
      worstTradePct: NO_TRADES,
      avgTradePct: NO_TRADES,
      maxTradeDurationDays: NO_TRADES,
      avgTradeDurationDays: NO_TRADES,
      profitFactor: NO_TRADES,
      expectancyPct: NO_TRADES,
      sqn: NO_TRADES,
      kellyCriterion: NO_TRADES,
    };
  }
  // Typed arrays, as every other series `mean` reads: a JS array of whole numbers (durations of
  // daily trades) would give it a second kind of array, and its optimized code would be thrown
  // away when the first one came.
  const returns = Float64Array.from(trades, (t) => t.returnPct);
  const pnls = Float64Array.from(trades, (t) => t.pnl);
  const durations = Float64Array.from(trades, (t) => (t.exitTime - t.entryTime) / MS_PER_DAY);
  const wins = pnls.filter((p) => p > 0);
  const losses = pnls.filter((p) => p < 0);
  const winRate = wins.length / n;
  const gmean = geometricMean(returns);

  return {
    trades: n,
    winRatePct: winRate * 100,
    bestTradePct: returns.reduce((a, b) => Math.max(a, b)) * 100,
    worstTradePct: returns.reduce((a, b) => Math.min(a, b)) * 100,
    avgTradePct:
      gmean === null
        ? because("a trade lost 100 % or more, so the geometric mean of trade returns is undefined")
        : gmean * 100,
    maxTradeDurationDays: durations.reduce((a, b) => Math.max(a, b)),
    avgTradeDurationDays: mean(durations),
    profitFactor: profitFactor(returns),
    expectancyPct: mean(returns) * 100,
    sqn: systemQualityNumber(pnls),
    kellyCriterion: kelly(winRate, wins, losses),
  };
}

/** Sum of winning trade returns over the absolute sum of losing ones (returns, not money, as
 * backtesting.py does, so position size does not weigh the ratio). */
function profitFactor(returns: Float64Array): Computed {
  let gain = 0;
  let loss = 0;
  for (const r of returns) {
    if (r > 0) gain += r;
    else if (r < 0) loss -= r;
  }
  if (loss === 0) return because("no losing trades: gross loss is 0, so the ratio is undefined");
  return gain / loss;
}

/** Van Tharp's SQN: √n · mean(P&L) / sample standard deviation of P&L. */
function systemQualityNumber(pnls: Float64Array): Computed {
  if (pnls.length < 2) return because("needs at least 2 closed trades for a standard deviation");
  const m = mean(pnls);
  let ss = 0;
  for (const p of pnls) ss += (p - m) ** 2;
  const sd = Math.sqrt(ss / (pnls.length - 1));
  if (sd === 0) return because("every trade made the same P&L: standard deviation is 0");
  return (Math.sqrt(pnls.length) * m) / sd;
}

/** Kelly fraction W − (1 − W) / R, with R the average win over the average loss (in money). */
function kelly(winRate: number, wins: Float64Array, losses: Float64Array): Computed {
  if (wins.length === 0) return because("no winning trades: the win/loss ratio is undefined");
  if (losses.length === 0) return because("no losing trades: the win/loss ratio is undefined");
  const ratio = mean(wins) / -mean(losses);
  return winRate - (1 - winRate) / ratio;
}
