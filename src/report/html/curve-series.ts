import { type LinePoints, minMaxLine, minMaxOf, round8 } from "./downsample.js";

/** At most this many points per line on the page (see docs/report.md). */
export const LINE_POINTS = 5000;

/** The run's curve: times in ms, one value per bar (equity.csv or the runner's arrays). */
export interface CurveColumns {
  times: ArrayLike<number>;
  equity: ArrayLike<number>;
  benchmark: ArrayLike<number>;
}

/** The page's equity, buy-and-hold and drawdown lines, each cut down to LINE_POINTS. */
export interface CurveLines {
  equity: LinePoints;
  benchmark: LinePoints;
  drawdown: LinePoints;
  bars: number;
  /** Where the deepest and the longest drawdowns are (null when equity never fell). */
  drawdowns: DrawdownMarks | null;
}

/** Times in seconds, as the lines'; percents as equity.csv's drawdown_pct. */
export interface DrawdownMarks {
  /** The peak before the deepest drawdown, its equity, its trough, and the depth (negative
   * percent). */
  peak: number;
  peakEquity: number;
  trough: number;
  maxPct: number;
  /** The longest stretch below a peak: from the peak to the bar back at it, or to the last bar
   * (recovered false), as the metrics' maxDrawdownDurationDays measures it. */
  longestFrom: number;
  longestTo: number;
  longestDays: number;
  recovered: boolean;
}

/** The report's lines from a curve. Its own module: equity.csv's worker thread draws them too. */
export function curveSeries(c: CurveColumns): CurveLines {
  const n = Math.min(c.times.length, c.equity.length);
  // The drawdown made point by point as the line takes it: no array of it at the run's end, when
  // its memory peaks.
  let i = 0;
  let peak = Number.NEGATIVE_INFINITY;
  let peakAt = 0;
  // The deepest drawdown so far, and the longest stretch below a peak (start and end bars).
  let max = 0;
  let maxPeak = 0;
  let maxAt = 0;
  let longest = { from: 0, to: 0, recovered: true };
  const time = (k: number) => c.times[k] as number;
  const stretch = (to: number, recovered: boolean) => {
    if (time(to) - time(peakAt) > time(longest.to) - time(longest.from)) {
      longest = { from: peakAt, to, recovered };
    }
  };
  const drawdown = () => {
    const k = i;
    const e = c.equity[k] as number;
    i++;
    if (e >= peak) {
      if (k > peakAt + 1) stretch(k, true);
      peak = e;
      peakAt = k;
    } else if (k === n - 1) stretch(k, false);
    // As equity.csv's drawdown_pct: percent below the running peak.
    const dd = peak > 0 && e < peak ? (e / peak - 1) * 100 : 0;
    if (dd < max) {
      max = dd;
      maxPeak = peakAt;
      maxAt = k;
    }
    return dd;
  };
  const drawdownLine = minMaxOf(c.times, n, LINE_POINTS, drawdown);
  const s = (k: number) => time(k) / 1000;
  return {
    equity: minMaxLine(c.times, c.equity, LINE_POINTS),
    benchmark: minMaxLine(c.times, c.benchmark, LINE_POINTS),
    drawdown: drawdownLine,
    bars: n,
    drawdowns:
      max < 0
        ? {
            peak: s(maxPeak),
            peakEquity: round8(c.equity[maxPeak] as number),
            trough: s(maxAt),
            maxPct: round8(max),
            longestFrom: s(longest.from),
            longestTo: s(longest.to),
            longestDays: round8((time(longest.to) - time(longest.from)) / 86_400_000),
            recovered: longest.recovered,
          }
        : null,
  };
}
