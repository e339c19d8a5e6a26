import type { SymbolSeries } from "../../src/engine/types.js";

/** A series from closes (and optionally highs, lows, volumes); unspecified columns copy the close. */
export function makeSeries(columns: {
  close: number[];
  high?: number[];
  low?: number[];
  volume?: number[];
  symbol?: string;
}): SymbolSeries {
  const n = columns.close.length;
  const close = Float64Array.from(columns.close);
  return {
    symbol: columns.symbol ?? "TEST",
    source: "test.csv",
    length: n,
    time: Float64Array.from({ length: n }, (_, i) => i * 86_400_000),
    open: close.slice(),
    high: Float64Array.from(columns.high ?? columns.close),
    low: Float64Array.from(columns.low ?? columns.close),
    close,
    volume: Float64Array.from(columns.volume ?? columns.close.map(() => 1000)),
  };
}

/** A deterministic random walk with consistent OHLC (fixed-seed LCG, so failures reproduce). */
export function randomWalk(n: number, seed = 42): SymbolSeries {
  let state = seed >>> 0;
  const next = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const close: number[] = [];
  const high: number[] = [];
  const low: number[] = [];
  const volume: number[] = [];
  let price = 100;
  for (let i = 0; i < n; i++) {
    price *= 1 + (next() - 0.5) * 0.04;
    close.push(price);
    high.push(price * (1 + next() * 0.02));
    low.push(price * (1 - next() * 0.02));
    volume.push(Math.round(1000 + next() * 9000));
  }
  return makeSeries({ close, high, low, volume });
}

/** The first `k` bars of a series, as fresh arrays (what the engine would have seen at bar k-1). */
export function prefix(series: SymbolSeries, k: number): SymbolSeries {
  return {
    ...series,
    length: k,
    time: series.time.slice(0, k),
    open: series.open.slice(0, k),
    high: series.high.slice(0, k),
    low: series.low.slice(0, k),
    close: series.close.slice(0, k),
    volume: series.volume.slice(0, k),
  };
}

/** Float64Array → plain array so that toEqual compares NaN positions too. */
export function plain(values: Float64Array | undefined): number[] {
  if (!values) throw new Error("missing output");
  return Array.from(values);
}
