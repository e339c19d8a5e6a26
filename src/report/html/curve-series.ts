import { type LinePoints, minMaxLine, minMaxOf } from "./downsample.js";

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
}

/** The report's lines from a curve. Its own module: equity.csv's worker thread draws them too. */
export function curveSeries(c: CurveColumns): CurveLines {
  const n = Math.min(c.times.length, c.equity.length);
  // The drawdown made point by point as the line takes it: no array of it at the run's end, when
  // its memory peaks.
  let i = 0;
  let peak = Number.NEGATIVE_INFINITY;
  const drawdown = () => {
    const e = c.equity[i] as number;
    i++;
    if (e > peak) peak = e;
    // As equity.csv's drawdown_pct: percent below the running peak.
    return peak > 0 && e < peak ? (e / peak - 1) * 100 : 0;
  };
  return {
    equity: minMaxLine(c.times, c.equity, LINE_POINTS),
    benchmark: minMaxLine(c.times, c.benchmark, LINE_POINTS),
    drawdown: minMaxOf(c.times, n, LINE_POINTS, drawdown),
    bars: n,
  };
}
