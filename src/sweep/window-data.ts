import { seriesHead } from "../engine/series-head.js";
import type { MarketData, SymbolSeries } from "../engine/types.js";

/**
 * The data up to master bar `last` (included), as `--to` at that bar's time would load it: every
 * column a view of the same memory (shared columns stay shared, so workers get no copy). For
 * windows of one loaded data set (walk-forward): later bars are not in it at all.
 */
export function dataUpTo(data: MarketData, last: number): MarketData {
  if (last >= data.times.length - 1) return data;
  const end = last + 1;
  const series: SymbolSeries[] = data.series.map((s, k) => {
    const map = data.barIndex[k] as Int32Array;
    let n = 0;
    for (let i = end - 1; i >= 0; i--) {
      const bi = map[i] as number;
      if (bi >= 0) {
        n = bi + 1;
        break;
      }
    }
    return seriesHead(s, n);
  });
  return {
    symbols: data.symbols,
    series,
    times: data.times.subarray(0, end),
    barIndex: data.barIndex.map((m) => m.subarray(0, end)),
  };
}
