import { nanArray } from "./nan-array.js";

function windowSum(values: Float64Array, from: number, to: number): number {
  let sum = 0;
  for (let j = from; j < to; j++) sum += values[j]!;
  return sum;
}

/**
 * Simple moving average: mean of the last `period` values, defined from index `period - 1`.
 * A running sum keeps it O(n); the window is re-summed exactly once every `period` bars so that
 * rounding error from adding and subtracting cannot build up over a million bars (still O(n)).
 */
export function sma(values: Float64Array, period: number): Float64Array {
  const n = values.length;
  const out = nanArray(n);
  // Block by block: each block starts from an exact window sum, then slides `period - 1` times.
  for (let start = 0; start + period <= n; start += period) {
    let sum = windowSum(values, start, start + period);
    out[start + period - 1] = sum / period;
    const end = Math.min(n, start + 2 * period - 1);
    for (let i = start + period; i < end; i++) {
      sum += values[i]! - values[i - period]!;
      out[i] = sum / period;
    }
  }
  return out;
}

/**
 * Exponential moving average with alpha = 2 / (period + 1), seeded with the SMA of the first
 * `period` values (from `start`), so the first value is at `start + period - 1`. `start` lets MACD
 * smooth its own line, which only begins once the slow EMA exists.
 * Recursion: ema[i] = ema[i-1] + alpha * (x[i] - ema[i-1]).
 */
export function ema(values: Float64Array, period: number, start = 0): Float64Array {
  const n = values.length;
  const out = nanArray(n);
  const seedIndex = start + period - 1;
  if (seedIndex >= n) return out;
  const alpha = 2 / (period + 1);
  let prev = windowSum(values, start, seedIndex + 1) / period;
  out[seedIndex] = prev;
  for (let i = seedIndex + 1; i < n; i++) {
    prev += alpha * (values[i]! - prev);
    out[i] = prev;
  }
  return out;
}

/**
 * Linearly weighted moving average: weights 1..period, the newest value weighing `period`,
 * divided by period * (period + 1) / 2. Summed directly per window (no running update) so the
 * result is exact; O(n * period) is a few ms even for a million bars at usual periods.
 */
export function wma(values: Float64Array, period: number): Float64Array {
  const n = values.length;
  const out = nanArray(n);
  const denominator = (period * (period + 1)) / 2;
  for (let i = period - 1; i < n; i++) {
    let weighted = 0;
    const first = i - period + 1;
    for (let j = 0; j < period; j++) weighted += (j + 1) * values[first + j]!;
    out[i] = weighted / denominator;
  }
  return out;
}
