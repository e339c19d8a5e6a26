import type { MarketData, SymbolSeries } from "./types.js";

/** Aligns symbols by timestamp, never by row: the master timeline is the sorted union of all
 * timestamps, and a symbol without a bar at a time has index -1 there. Series must be sorted. */
export function alignSeries(series: readonly SymbolSeries[]): MarketData {
  const symbols = series.map((s) => s.symbol);
  const seen = new Set<string>();
  for (const sym of symbols) {
    if (seen.has(sym)) {
      throw new Error(
        `Two data files share the symbol ${sym}. Name them with --data SYM=path so each symbol is unique.`,
      );
    }
    seen.add(sym);
  }
  let times: Float64Array;
  if (series.length === 1 && series[0]) {
    times = series[0].time;
  } else {
    // k-way merge of sorted arrays into a sorted union without duplicates.
    const total = series.reduce((n, s) => n + s.length, 0);
    const merged = new Float64Array(total);
    const cursor = new Int32Array(series.length);
    let n = 0;
    for (;;) {
      let min = Number.POSITIVE_INFINITY;
      for (let k = 0; k < series.length; k++) {
        const s = series[k] as SymbolSeries;
        const c = cursor[k] as number;
        if (c < s.length) {
          const t = s.time[c] as number;
          if (t < min) min = t;
        }
      }
      if (min === Number.POSITIVE_INFINITY) break;
      merged[n++] = min;
      for (let k = 0; k < series.length; k++) {
        const s = series[k] as SymbolSeries;
        const c = cursor[k] as number;
        if (c < s.length && s.time[c] === min) cursor[k] = c + 1;
      }
    }
    times = merged.slice(0, n);
  }
  const barIndex = series.map((s) => {
    const map = new Int32Array(times.length).fill(-1);
    let j = 0;
    for (let i = 0; i < times.length && j < s.length; i++) {
      if (s.time[j] === times[i]) map[i] = j++;
    }
    return map;
  });
  return { symbols, series, times, barIndex };
}
