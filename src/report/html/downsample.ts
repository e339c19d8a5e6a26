// A report page stays small and quick whatever the run's length: lines keep each bucket's lowest
// and highest point (so no drawdown or spike disappears), candles merge runs of bars into one.

/** A line for the page: times in seconds (the chart's UTCTimestamp), values rounded. */
export interface LinePoints {
  t: number[];
  v: number[];
}

/** OHLC candles for the page; `per` bars of the data make one candle (1 = not aggregated). */
export interface Candles {
  t: number[];
  o: number[];
  h: number[];
  l: number[];
  c: number[];
  /** Each candle's summed volume; empty when the data has none (all zero or missing). */
  v: number[];
  per: number;
}

/** Eight significant digits: more than a chart can show, and half the bytes of full doubles. */
export const round8 = (v: number) => Number(v.toPrecision(8));

const seconds = (ms: number) => ms / 1000;

/**
 * At most about `maxPoints` points of `values` (times in ms): per bucket of consecutive points,
 * the lowest and the highest in time order, plus the first and the last point. Points that are
 * not finite numbers are left out.
 */
export function minMaxLine(
  times: ArrayLike<number>,
  values: ArrayLike<number>,
  maxPoints: number,
): LinePoints {
  let i = 0;
  return minMaxOf(times, Math.min(times.length, values.length), maxPoints, () => {
    const v = values[i] as number;
    i++;
    return v;
  });
}

/**
 * minMaxLine over values made one at a time: `next()` gives point 0, then 1, ... up to n − 1,
 * each asked for once and in order, so a value can depend on the ones before it (a drawdown on
 * its running peak) and no array of them need exist.
 */
export function minMaxOf(
  times: ArrayLike<number>,
  n: number,
  maxPoints: number,
  next: () => number,
): LinePoints {
  const out: LinePoints = { t: [], v: [] };
  const push = (i: number, v: number) => {
    if (!Number.isFinite(v)) return;
    out.t.push(seconds(times[i] as number));
    out.v.push(round8(v));
  };
  if (n <= maxPoints) {
    for (let i = 0; i < n; i++) push(i, next());
    return out;
  }
  const buckets = Math.max(1, Math.floor((maxPoints - 2) / 2));
  const size = (n - 2) / buckets;
  push(0, next());
  // The buckets cover points 1 … n − 2 one after another, so `next` is read in order.
  for (let b = 0; b < buckets; b++) {
    const from = 1 + Math.floor(b * size);
    const to = Math.min(n - 1, 1 + Math.floor((b + 1) * size));
    let lo = -1;
    let hi = -1;
    let loValue = 0;
    let hiValue = 0;
    for (let i = from; i < to; i++) {
      const v = next();
      if (!Number.isFinite(v)) continue;
      if (lo < 0 || v < loValue) {
        lo = i;
        loValue = v;
      }
      if (hi < 0 || v > hiValue) {
        hi = i;
        hiValue = v;
      }
    }
    if (lo < 0) continue;
    if (lo === hi) push(lo, loValue);
    else if (lo < hi) {
      push(lo, loValue);
      push(hi, hiValue);
    } else {
      push(hi, hiValue);
      push(lo, loValue);
    }
  }
  push(n - 1, next());
  return out;
}

export interface OhlcColumns {
  readonly time: ArrayLike<number>;
  readonly open: ArrayLike<number>;
  readonly high: ArrayLike<number>;
  readonly low: ArrayLike<number>;
  readonly close: ArrayLike<number>;
  readonly volume?: ArrayLike<number>;
}

/**
 * The bars of `s` from index `from` to `to` (exclusive) as at most `maxBars` candles: each of
 * `per` consecutive bars opens at the first bar's open and time, closes at the last bar's close,
 * and spans their highest high and lowest low.
 */
export function aggregateCandles(s: OhlcColumns, from: number, to: number, maxBars: number) {
  const n = Math.max(0, to - from);
  const per = Math.max(1, Math.ceil(n / maxBars));
  const out: Candles = { t: [], o: [], h: [], l: [], c: [], v: [], per };
  let anyVolume = false;
  for (let k = from; k < to; k += per) {
    const end = Math.min(to, k + per);
    let h = Number.NEGATIVE_INFINITY;
    let l = Number.POSITIVE_INFINITY;
    let v = 0;
    for (let i = k; i < end; i++) {
      if ((s.high[i] as number) > h) h = s.high[i] as number;
      if ((s.low[i] as number) < l) l = s.low[i] as number;
      const x = s.volume?.[i] ?? 0;
      if (Number.isFinite(x)) v += x;
    }
    out.t.push(seconds(s.time[k] as number));
    out.o.push(round8(s.open[k] as number));
    out.h.push(round8(h));
    out.l.push(round8(l));
    out.c.push(round8(s.close[end - 1] as number));
    out.v.push(round8(v));
    if (v !== 0) anyVolume = true;
  }
  if (!anyVolume) out.v = [];
  return out;
}

/** Index of the last element of sorted `xs` that is ≤ x (0 when x precedes them all). */
export function floorIndex(xs: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = xs.length - 1;
  let ans = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((xs[mid] as number) <= x) {
      ans = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return ans;
}
