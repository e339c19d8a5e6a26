import { sma } from "./moving-average.js";
import { nanArray } from "./nan-array.js";

export interface BollingerOutputs {
  upper: Float64Array;
  middle: Float64Array;
  lower: Float64Array;
}

/**
 * Bollinger bands: middle = SMA(period); upper/lower = middle ± stddev * σ, where σ is the
 * *population* standard deviation of the window (divide by period, as Bollinger and TA-Lib do).
 * σ is summed from deviations per window rather than from a running sum of squares, which would
 * lose precision through cancellation at high price levels.
 */
export function bollingerBands(
  close: Float64Array,
  period: number,
  stddev: number,
): BollingerOutputs {
  const n = close.length;
  const middle = sma(close, period);
  const upper = nanArray(n);
  const lower = nanArray(n);
  for (let i = period - 1; i < n; i++) {
    const mean = middle[i]!;
    let squares = 0;
    for (let j = i - period + 1; j <= i; j++) {
      const deviation = close[j]! - mean;
      squares += deviation * deviation;
    }
    const width = stddev * Math.sqrt(squares / period);
    upper[i] = mean + width;
    lower[i] = mean - width;
  }
  return { upper, middle, lower };
}
