import type { SymbolSeries } from "./types.js";

/** A series' first `n` bars: every column a view of the same memory (no copy). */
export function seriesHead(s: SymbolSeries, n: number): SymbolSeries {
  return {
    symbol: s.symbol,
    source: s.source,
    length: n,
    time: s.time.subarray(0, n),
    open: s.open.subarray(0, n),
    high: s.high.subarray(0, n),
    low: s.low.subarray(0, n),
    close: s.close.subarray(0, n),
    volume: s.volume.subarray(0, n),
  };
}
