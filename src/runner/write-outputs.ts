import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { timeLabel, timeLabeler } from "../engine/calendar.js";
import type { ClosedTrade } from "../engine/types.js";
import { AtomicWriteError, writeFileAtomic, writeTextAtomic } from "../util/atomic-write.js";
import { SymlinkError } from "../util/no-follow.js";

/** A trade still open at the end, valued at the last close for the statistics (no exit fill). */
export interface ReportedTrade extends ClosedTrade {
  openAtEnd: boolean;
}

/** equity.csv, streamed row by row: at a million bars one big string would cost seconds of GC. */
export function writeEquityCsv(
  file: string,
  times: Float64Array,
  equity: Float64Array,
  cash: Float64Array,
  benchmark: Float64Array,
  intraday: boolean,
): void {
  writeEquityRows(file, times, equity, cashSteps(cash), benchmark, intraday);
}

/** A column that changes at a few rows (cash, on fills): its value from each of those rows on. */
export interface Steps {
  /** Rows where the value changes, ascending; the first row is always one. */
  at: Int32Array;
  value: Float64Array;
}

/** The rows where `column` changes (by `!==`, so every NaN is a change) and its values there. */
export function cashSteps(column: Float64Array): Steps {
  let count = 0;
  let last = Number.NaN;
  for (let i = 0; i < column.length; i++) {
    if (column[i] !== last) count++;
    last = column[i] as number;
  }
  const steps: Steps = { at: new Int32Array(count), value: new Float64Array(count) };
  count = 0;
  last = Number.NaN;
  for (let i = 0; i < column.length; i++) {
    const c = column[i] as number;
    if (c !== last) {
      steps.at[count] = i;
      steps.value[count++] = c;
    }
    last = c;
  }
  return steps;
}

export function writeEquityRows(
  file: string,
  times: Float64Array,
  equity: Float64Array,
  cash: Steps,
  benchmark: Float64Array,
  intraday: boolean,
): void {
  writeTextAtomic(file, (out) => {
    const label = timeLabeler(intraday);
    let peak = Number.NEGATIVE_INFINITY;
    // Cash only changes on fills: its text is made there (number formatting is most of this
    // loop's cost).
    let step = 0;
    let nextStep = cash.at.length > 0 ? (cash.at[0] as number) : -1;
    let cashText = "";
    // Rows are joined into pieces of about 64 KiB: one buffer write per piece, not per row.
    let piece = "time,equity,cash,drawdown_pct,benchmark\n";
    for (let i = 0; i < equity.length; i++) {
      const e = equity[i] as number;
      if (e > peak) peak = e;
      if (i === nextStep) {
        cashText = String(cash.value[step++]);
        nextStep = step < cash.at.length ? (cash.at[step] as number) : -1;
      }
      const dd = peak > 0 && e < peak ? String((e / peak - 1) * 100) : "0";
      piece += `${label(times[i] as number)},${e},${cashText},${dd},${benchmark[i]}\n`;
      if (piece.length >= PIECE) {
        out.write(piece);
        piece = "";
      }
    }
    out.write(piece);
  });
}

const PIECE = 1 << 16;

/** equity.csv's columns, one value per simulated bar. */
export interface EquityColumns {
  times: Float64Array;
  equity: Float64Array;
  cash: Float64Array;
  benchmark: Float64Array;
  intraday: boolean;
}

/**
 * From this many rows the runner has equity.csv formatted and written by a worker thread while it
 * goes on with the metrics and the other files (formatting four doubles a row is most of the write
 * phase); below it, a worker's start-up (tens of milliseconds) costs more than the file.
 */
export const EQUITY_WORKER_MIN_ROWS = 100_000;

/** Whether equity.csv of `rows` rows goes to a worker: a long run, on a machine with a second
 * core (on one core the worker would only add its start-up). */
export function equityInWorker(rows: number): boolean {
  return rows >= EQUITY_WORKER_MIN_ROWS && os.availableParallelism() > 1;
}

/** Where a column of the job lies: a shared column in place, or a part of the packed buffer. */
interface ColumnAt {
  buffer: ArrayBufferLike;
  byteOffset: number;
}

export interface EquityJob {
  file: string;
  /** The columns not already in shared memory, copied, then the cash steps (transferred). */
  columns: ArrayBuffer;
  times: ColumnAt;
  equity: ColumnAt;
  benchmark: ColumnAt;
  rows: number;
  steps: number;
  intraday: boolean;
  /** One Int32 the worker sets to 1 (and notifies) once it is through with the file. */
  finished: SharedArrayBuffer;
}

/** The job's columns, as views: of shared memory, or of its packed buffer. */
export function jobColumns(job: EquityJob) {
  const { columns, rows, steps } = job;
  const column = (c: ColumnAt) => new Float64Array(c.buffer, c.byteOffset, rows);
  const cashAt = columns.byteLength - steps * 12;
  return {
    times: column(job.times),
    equity: column(job.equity),
    benchmark: column(job.benchmark),
    cash: {
      value: new Float64Array(columns, cashAt, steps),
      at: new Int32Array(columns, cashAt + steps * 8, steps),
    },
  };
}

/**
 * The job's columns: one in shared memory (the simulation's equity and benchmark, the loader's
 * times) is handed over in place; the others are copied into the packed buffer, then the cash
 * steps. Sharing saved 24 MB of the run's peak at a million bars, which falls in this phase.
 */
export function packColumns(
  cols: Pick<EquityColumns, "times" | "equity" | "benchmark">,
  cash: { value: Float64Array; at: Int32Array },
): Pick<EquityJob, "columns" | "times" | "equity" | "benchmark"> {
  const list = [cols.times, cols.equity, cols.benchmark];
  const copied = list.filter((c) => !(c.buffer instanceof SharedArrayBuffer));
  const steps = cash.at.length;
  const columns = new ArrayBuffer(copied.reduce((n, c) => n + c.byteLength, 0) + steps * 12);
  let offset = 0;
  const [times, equity, benchmark] = list.map((c): ColumnAt => {
    if (c.buffer instanceof SharedArrayBuffer)
      return { buffer: c.buffer, byteOffset: c.byteOffset };
    new Float64Array(columns, offset, c.length).set(c);
    const at = { buffer: columns, byteOffset: offset };
    offset += c.byteLength;
    return at;
  }) as [ColumnAt, ColumnAt, ColumnAt];
  new Float64Array(columns, offset, steps).set(cash.value);
  new Int32Array(columns, offset + steps * 8, steps).set(cash.at);
  return { columns, times, equity, benchmark };
}

/** How the worker's write ended; an error travels as its parts (a thread cannot pass a class). */
export type EquityOutcome =
  | { ok: true }
  | { ok: false; name: string; message: string; file: string | null; cause: string | null };

export function errorOutcome(err: unknown): EquityOutcome {
  const e = err instanceof Error ? err : new Error(String(err));
  const file = err instanceof AtomicWriteError || err instanceof SymlinkError ? err.file : null;
  const cause =
    e.cause instanceof Error ? e.cause.message : e.cause === undefined ? null : String(e.cause);
  return { ok: false, name: e.name, message: e.message, file, cause };
}

/** The worker's error as the inline write would have thrown it: same class, same message. */
function rebuiltError(o: Extract<EquityOutcome, { ok: false }>): Error {
  if (o.name === "AtomicWriteError" && o.file !== null && o.cause !== null) {
    const rebuilt = new AtomicWriteError(o.file, new Error(o.cause));
    if (rebuilt.message === o.message) return rebuilt;
  }
  if (o.name === "SymlinkError" && o.file !== null) {
    const rebuilt = new SymlinkError(o.file);
    if (rebuilt.message === o.message) return rebuilt;
  }
  const other = new Error(o.message);
  other.name = o.name;
  return other;
}

// Under vitest and tsx this module runs from its .ts source, and so must the worker (through tsx).
const SELF = fileURLToPath(import.meta.url);
const FROM_SOURCE = SELF.endsWith(".ts");

/** A worker's boot code that loads a .ts module through tsx (a thread does not inherit the
 * loader vitest or tsx gave this one, and ignores `--import` in its execArgv). */
function fromSource(file: string): string {
  const tsx = createRequire(import.meta.url).resolve("tsx/cjs/api");
  return `require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(file)});`;
}

/**
 * equity.csv from a worker thread. Columns in shared memory are read in place; any other is
 * copied into one buffer that is moved (not copied again) to the worker, with cash as its steps
 * (a few thousand fills, not a million bars) (packColumns). A worker that cannot start or dies
 * without an answer leaves the write to this thread, from the caller's own columns.
 */
export function writeEquityCsvInWorker(file: string, cols: EquityColumns): EquityWrite {
  const rows = cols.equity.length;
  const inline = () => {
    writeEquityCsv(file, cols.times, cols.equity, cols.cash, cols.benchmark, cols.intraday);
    return "inline" as const;
  };
  // Columns of other lengths (never from a simulation) are written as they are, by this thread.
  if ([cols.times, cols.cash, cols.benchmark].some((c) => c.length !== rows)) {
    return { done: Promise.resolve().then(inline), finishSync: () => {} };
  }
  const cash = cashSteps(cols.cash);
  const steps = cash.at.length;
  const job: EquityJob = {
    file,
    ...packColumns(cols, cash),
    rows,
    steps,
    intraday: cols.intraday,
    finished: new SharedArrayBuffer(4),
  };
  const finished = new Int32Array(job.finished);
  const columns = job.columns;
  // A small young generation: the rows' text dies young, and a default-sized one would add tens
  // of megabytes to the run's peak memory, which falls in this phase.
  const options = {
    workerData: job,
    transferList: [columns],
    resourceLimits: { maxYoungGenerationSizeMb: 4 },
  };
  const done = new Promise<EquityOutcome | null>((resolve) => {
    let worker: Worker;
    try {
      worker = FROM_SOURCE
        ? new Worker(fromSource(path.join(path.dirname(SELF), "equity-csv-worker.ts")), {
            ...options,
            eval: true,
          })
        : new Worker(new URL("./equity-csv-worker.js", import.meta.url), options);
    } catch {
      resolve(null);
      return;
    }
    worker.once("message", (m: EquityOutcome) => resolve(m));
    worker.once("error", () => resolve(null));
    worker.once("exit", () => resolve(null));
  }).then((outcome) => {
    if (outcome === null) return inline();
    if (!outcome.ok) throw rebuiltError(outcome);
    return "worker" as const;
  });
  return {
    done,
    finishSync: () => {
      Atomics.wait(finished, 0, 0, FINISH_WAIT_MS);
    },
  };
}

/** Longest a process about to exit waits for equity.csv's worker (it takes about a second). */
const FINISH_WAIT_MS = 10_000;

/** equity.csv being written by a worker thread. */
export interface EquityWrite {
  /** Settles once the file is whole, flushed and renamed into place, or rejects with the error
   * the inline write would have thrown. */
  done: Promise<"worker" | "inline">;
  /** Blocks this thread until the worker is through with the file: a process about to exit (a
   * second Ctrl-C) must not leave the worker's temp file behind. */
  finishSync(): void;
}

export function tradesCsv(trades: readonly ReportedTrade[], intraday: boolean): string {
  const lines = [
    "id,symbol,side,qty,entry_time,entry_price,exit_time,exit_price,pnl,return_pct,commission,slippage,bars_held,entry_order,exit_order,open_at_end,exit_reason",
  ];
  for (const t of trades) {
    lines.push(
      [
        t.id,
        t.symbol,
        t.side,
        t.qty,
        timeLabel(t.entryTime, intraday),
        t.entryPrice,
        timeLabel(t.exitTime, intraday),
        t.exitPrice,
        t.pnl,
        t.returnPct * 100,
        t.commission,
        t.slippage,
        t.exitIndex - t.entryIndex,
        t.entryOrderId,
        t.openAtEnd ? "" : t.exitOrderId,
        t.openAtEnd,
        t.exitReason ?? "",
      ].join(","),
    );
  }
  return `${lines.join("\n")}\n`;
}

/** orders.jsonl, decisions.jsonl: one record a line, streamed (no second copy of them all). */
export function writeLines(file: string, records: Iterable<string>): void {
  writeTextAtomic(file, (out) => {
    let piece = "";
    for (const r of records) {
      piece += `${r}\n`;
      if (piece.length >= PIECE) {
        out.write(piece);
        piece = "";
      }
    }
    out.write(piece);
  });
}

export function writeText(file: string, text: string): void {
  writeFileAtomic(file, text);
}
