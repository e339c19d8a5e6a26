import { nanArray } from "./nan-array.js";

/**
 * Highest (`"max"`) or lowest (`"min"`) value of the last `period` values, the current one
 * included, defined from index `period - 1`. A monotonic deque of indices makes it O(n) whatever the
 * period, and it only compares, so the result is exactly one of the inputs.
 */
export function rollingExtreme(
  values: Float64Array,
  period: number,
  kind: "max" | "min",
): Float64Array {
  const n = values.length;
  const out = nanArray(n);
  // Flipping the sign turns a rolling min into a rolling max, so one tight loop serves both.
  const sign = kind === "max" ? 1 : -1;
  // Each index enters the deque once, so a plain array of length n needs no wrap-around.
  const deque = new Int32Array(n);
  let head = 0;
  let tail = 0;
  for (let i = 0; i < n; i++) {
    if (tail > head && deque[head]! <= i - period) head++;
    const x = sign * values[i]!;
    while (tail > head && x >= sign * values[deque[tail - 1]!]!) tail--;
    deque[tail++] = i;
    if (i >= period - 1) out[i] = values[deque[head]!]!;
  }
  return out;
}
