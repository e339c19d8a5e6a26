import { nanArray } from "./nan-array.js";

/**
 * Average true range with Wilder smoothing (the TA-Lib convention). The true range needs the
 * previous close, so it starts at bar 1: TR = max(high - low, |high - prevClose|, |low - prevClose|).
 * The first ATR is the simple mean of TR over bars 1..period (defined at index `period`), then
 * atr = (prevAtr * (period - 1) + TR) / period.
 */
export function atr(
  high: Float64Array,
  low: Float64Array,
  close: Float64Array,
  period: number,
): Float64Array {
  const n = close.length;
  const out = nanArray(n);
  if (period >= n) return out;
  const trueRange = (i: number): number => {
    const prevClose = close[i - 1]!;
    const h = high[i]!;
    const l = low[i]!;
    return Math.max(h - l, Math.abs(h - prevClose), Math.abs(l - prevClose));
  };
  let value = 0;
  for (let i = 1; i <= period; i++) value += trueRange(i);
  value /= period;
  out[period] = value;
  for (let i = period + 1; i < n; i++) {
    value = (value * (period - 1) + trueRange(i)) / period;
    out[i] = value;
  }
  return out;
}
