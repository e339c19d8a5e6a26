import { ema } from "./moving-average.js";
import { nanArray } from "./nan-array.js";

export interface MacdOutputs {
  macd: Float64Array;
  signal: Float64Array;
  histogram: Float64Array;
}

/**
 * MACD from our EMAs (each seeded with its SMA): macd = EMA(fast) - EMA(slow), defined from index
 * slow - 1; signal = EMA(signalPeriod) of the macd line, seeded with the SMA of its first
 * signalPeriod values, so defined from slow + signal - 2; histogram = macd - signal.
 */
export function macd(
  close: Float64Array,
  fast: number,
  slow: number,
  signalPeriod: number,
): MacdOutputs {
  const n = close.length;
  const fastEma = ema(close, fast);
  const slowEma = ema(close, slow);
  const line = nanArray(n);
  for (let i = slow - 1; i < n; i++) line[i] = fastEma[i]! - slowEma[i]!;
  const signal = ema(line, signalPeriod, slow - 1);
  const histogram = nanArray(n);
  for (let i = slow + signalPeriod - 2; i < n; i++) histogram[i] = line[i]! - signal[i]!;
  return { macd: line, signal, histogram };
}
