import type { MarketData, SymbolSeries } from "../engine/types.js";

/** A column over shared memory: itself when it is already, else one copy (made once per sweep). */
function sharedColumn<T extends Float64Array | Int32Array>(a: T): T {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  const Ctor = a.constructor as { new (b: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number };
  const out = new Ctor(new SharedArrayBuffer(a.length * Ctor.BYTES_PER_ELEMENT));
  out.set(a as never);
  return out;
}

/**
 * The data with every column in shared memory: posted to a worker thread, its columns are the
 * same memory in both threads, not copies (a million bars are loaded once for all the workers).
 */
export function sharedMarketData(data: MarketData): MarketData {
  const series: SymbolSeries[] = data.series.map((s) => ({
    symbol: s.symbol,
    source: s.source,
    length: s.length,
    time: sharedColumn(s.time),
    open: sharedColumn(s.open),
    high: sharedColumn(s.high),
    low: sharedColumn(s.low),
    close: sharedColumn(s.close),
    volume: sharedColumn(s.volume),
  }));
  return {
    symbols: [...data.symbols],
    series,
    times: sharedColumn(data.times),
    barIndex: data.barIndex.map(sharedColumn),
  };
}
