import { nanArray } from "./nan-array.js";

/**
 * Wilder's RSI, not rounded. Changes start at bar 1; the first average gain/loss is the simple mean
 * of the first `period` changes (bars 1..period), so RSI is first defined at index `period`. After
 * that Wilder smoothing: avg = (prevAvg * (period - 1) + current) / period.
 * RSI = 100 - 100 / (1 + avgGain / avgLoss), written as 100 * avgGain / (avgGain + avgLoss) so that
 * no loss gives 100 without dividing by zero; a window with no change at all gives 50 (neutral).
 */
export function rsi(close: Float64Array, period: number): Float64Array {
  const n = close.length;
  const out = nanArray(n);
  if (period >= n) return out;
  let avgGain = 0;
  let avgLoss = 0;
  for (let i = 1; i <= period; i++) {
    const change = close[i]! - close[i - 1]!;
    if (change > 0) avgGain += change;
    else avgLoss -= change;
  }
  avgGain /= period;
  avgLoss /= period;
  out[period] = rsiFrom(avgGain, avgLoss);
  for (let i = period + 1; i < n; i++) {
    const change = close[i]! - close[i - 1]!;
    avgGain = (avgGain * (period - 1) + Math.max(change, 0)) / period;
    avgLoss = (avgLoss * (period - 1) + Math.max(-change, 0)) / period;
    out[i] = rsiFrom(avgGain, avgLoss);
  }
  return out;
}

function rsiFrom(avgGain: number, avgLoss: number): number {
  const total = avgGain + avgLoss;
  return total === 0 ? 50 : (100 * avgGain) / total;
}
