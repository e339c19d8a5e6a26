import type { MarketData } from "../engine/types.js";

/**
 * The benchmark every result is shown beside: cash split equally across the symbols, each share
 * bought at the symbol's first close in the window (no costs, fractional units) and held to the
 * end. With one symbol it is last close / first close − 1 over the window. backtesting.py ≥ 0.6
 * starts its "Buy & Hold Return" after the strategy's indicator warm-up instead (docs/metrics.md).
 * A symbol whose data ends early keeps the value of its last close: its share is sold there and
 * held as cash (no costs), never valued at a stale price as if still held.
 */
export function buyAndHoldEquity(
  data: MarketData,
  initialCash: number,
  start = 0,
  allocate: (length: number) => Float64Array = (length) => new Float64Array(length),
): Float64Array {
  const n = data.times.length;
  const out = allocate(Math.max(0, n - start));
  const k = data.series.length;
  const share = initialCash / Math.max(1, k);
  const units = new Float64Array(k);
  const last = new Float64Array(k);
  const bought = new Uint8Array(k);
  for (let i = start; i < n; i++) {
    let equity = 0;
    for (let s = 0; s < k; s++) {
      const bi = (data.barIndex[s] as Int32Array)[i] as number;
      if (bi >= 0) {
        const close = (data.series[s] as { close: Float64Array }).close[bi] as number;
        last[s] = close;
        if (!bought[s]) {
          bought[s] = 1;
          units[s] = share / close;
        }
      }
      equity += bought[s] ? (units[s] as number) * (last[s] as number) : share;
    }
    out[i - start] = equity;
  }
  return out;
}
