import { nanArray } from "./nan-array.js";

/** Rate of change in percent: 100 * (close[i] - close[i - period]) / close[i - period], defined
 * from index `period`. */
export function rateOfChange(close: Float64Array, period: number): Float64Array {
  const n = close.length;
  const out = nanArray(n);
  for (let i = period; i < n; i++) {
    const past = close[i - period]!;
    out[i] = (100 * (close[i]! - past)) / past;
  }
  return out;
}
