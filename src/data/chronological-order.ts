import type { Millis } from "../engine/types.js";
import { DataError } from "./data-error.js";

/** The bar columns of one file while it is being loaded, with each bar's line in the file. */
export interface BarColumns {
  time: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
  line: Int32Array;
}

/** Shows a timestamp the way a user would look it up in the file. */
export function formatMillis(t: Millis): string {
  const iso = new Date(t).toISOString();
  const text = iso.endsWith(".000Z") ? iso.slice(0, 19) : iso.slice(0, 23);
  return text.endsWith("T00:00:00") ? text.slice(0, 10) : text.replace("T", " ");
}

/**
 * Returns the bars in ascending time order. Unsorted files are sorted (stably) with a warning, like
 * backtesting.py, or rejected when `strict`; duplicate timestamps are always rejected because no
 * rule can say which of the two bars is real.
 */
export function ensureChronological(
  file: string,
  timeColumn: string,
  bars: BarColumns,
  strict: boolean,
): { bars: BarColumns; warning: string | null } {
  const { time, line } = bars;
  let firstOutOfOrder = -1;
  for (let i = 1; i < time.length; i++) {
    const prev = time[i - 1] ?? 0;
    const t = time[i] ?? 0;
    if (t === prev) throw duplicate(file, timeColumn, t, line[i - 1] ?? 0, line[i] ?? 0);
    if (t < prev && firstOutOfOrder < 0) {
      firstOutOfOrder = i;
      if (strict) {
        throw new DataError({
          file,
          line: line[i] ?? 0,
          column: timeColumn,
          problem: `rows are not in time order: ${formatMillis(t)} comes after ${formatMillis(prev)} on line ${line[i - 1]}`,
          fix: "Sort the file by time in ascending order, or run without --strict to have it sorted with a warning.",
        });
      }
    }
  }
  if (firstOutOfOrder < 0) return { bars, warning: null };

  const order = new Uint32Array(time.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  // Ties cannot survive the duplicate check below, so the line tiebreak only keeps the sort stable.
  order.sort((a, b) => (time[a] ?? 0) - (time[b] ?? 0) || a - b);
  const sorted: BarColumns = {
    time: permute(time, order),
    open: permute(bars.open, order),
    high: permute(bars.high, order),
    low: permute(bars.low, order),
    close: permute(bars.close, order),
    volume: permute(bars.volume, order),
    line: Int32Array.from(order, (i) => line[i] ?? 0),
  };
  for (let i = 1; i < sorted.time.length; i++) {
    const t = sorted.time[i] ?? 0;
    if (t === sorted.time[i - 1]) {
      const a = sorted.line[i - 1] ?? 0;
      const b = sorted.line[i] ?? 0;
      throw duplicate(file, timeColumn, t, Math.min(a, b), Math.max(a, b));
    }
  }
  const at = line[firstOutOfOrder] ?? 0;
  return {
    bars: sorted,
    warning:
      `${file}:${at}: rows are not in time order (first out-of-order row on line ${at}); ` +
      "sorted them by time. Use --strict to reject unsorted files instead.",
  };
}

function duplicate(
  file: string,
  column: string,
  t: Millis,
  firstLine: number,
  secondLine: number,
): DataError {
  return new DataError({
    file,
    line: secondLine,
    column,
    problem: `duplicate timestamp ${formatMillis(t)} on lines ${firstLine} and ${secondLine}`,
    fix: "Remove one of the two rows; each bar needs its own timestamp.",
  });
}

function permute(values: Float64Array, order: Uint32Array): Float64Array {
  return Float64Array.from(order, (i) => values[i] ?? 0);
}
