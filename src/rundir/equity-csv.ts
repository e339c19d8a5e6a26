import { timeLabeler } from "../engine/calendar.js";
import { type TextSink, writeTextAtomic } from "../util/atomic-write.js";

export const EQUITY_CSV_HEADER = "time,equity,cash,drawdown_pct,benchmark\n";

/** equity.csv's columns, one value per simulated bar (index 0 is the window's first bar). */
export interface EquityColumns {
  times: Float64Array;
  equity: Float64Array;
  cash: Float64Array;
  benchmark: Float64Array;
  intraday: boolean;
}

/**
 * equity.csv's rows, made in order in as many calls as the caller likes: a worker thread writes
 * them while the simulation is still closing bars (equity-stream.ts). Formatting a double is most
 * of the cost (about 0.4 us each), so a value equal to the previous row's keeps its text: cash
 * changes only on fills, equity and drawdown only while a position is open.
 */
export class EquityCsvRows {
  private next = 0;
  private readonly label: (t: number) => string;
  private peak = Number.NEGATIVE_INFINITY;
  // Start as NaN: NaN !== anything, so the first row formats every value.
  private equity = Number.NaN;
  private equityText = "";
  private ddPeak = Number.NaN;
  private ddText = "";
  private cash = Number.NaN;
  private cashText = "";
  private bench = Number.NaN;
  private benchText = "";

  constructor(private readonly cols: EquityColumns) {
    this.label = timeLabeler(cols.intraday);
  }

  /** Rows written so far. */
  get written(): number {
    return this.next;
  }

  /** Writes rows up to `end` (exclusive) to `out`. */
  writeTo(out: TextSink, end: number): void {
    const { times, equity, cash, benchmark } = this.cols;
    const label = this.label;
    for (let i = this.next; i < end; i++) {
      const e = equity[i] as number;
      if (e > this.peak) this.peak = e;
      if (e !== this.equity || this.peak !== this.ddPeak) {
        this.ddText = this.peak > 0 && e < this.peak ? String((e / this.peak - 1) * 100) : "0";
        this.ddPeak = this.peak;
        if (e !== this.equity) this.equityText = String(e);
        this.equity = e;
      }
      const c = cash[i] as number;
      if (c !== this.cash) {
        this.cashText = String(c);
        this.cash = c;
      }
      const b = benchmark[i] as number;
      if (b !== this.bench) {
        this.benchText = String(b);
        this.bench = b;
      }
      out.write(
        `${label(times[i] as number)},${this.equityText},${this.cashText},${this.ddText},${this.benchText}\n`,
      );
      // Kept inside the loop: the worker's first call is a long one, optimized on the stack before
      // any code after the loop had run, and an access there without type feedback sends every
      // later batch back to the interpreter.
      this.next = i + 1;
    }
  }
}

/** equity.csv in this thread, streamed row by row (one big string would cost seconds of GC). */
export function writeEquityCsv(file: string, cols: EquityColumns): void {
  writeTextAtomic(file, (out) => {
    out.write(EQUITY_CSV_HEADER);
    new EquityCsvRows(cols).writeTo(out, cols.equity.length);
  });
}
