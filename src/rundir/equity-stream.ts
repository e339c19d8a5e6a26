import os from "node:os";
import type { Worker } from "node:worker_threads";
import { AtomicWriteError } from "../util/atomic-write.js";
import { SymlinkError } from "../util/no-follow.js";
import { sharedFloat64 } from "../util/shared-float64.js";
import { startWorker } from "../util/start-worker.js";
import { type EquityColumns, writeEquityCsv } from "./equity-csv.js";
import type { MetricsSource, RunMetrics } from "./run-metrics.js";

/**
 * From this many rows a run has equity.csv written by a worker thread during the simulation;
 * below it, a worker's start-up (tens of milliseconds) costs more than the file.
 */
export const EQUITY_WORKER_MIN_ROWS = 100_000;

/** Whether equity.csv of `rows` rows goes to a worker: a long run, on a machine with a second
 * core (on one core the worker would only compete with the simulation). */
export function equityInWorker(rows: number): boolean {
  return rows >= EQUITY_WORKER_MIN_ROWS && os.availableParallelism() > 1;
}

/** The control block both threads share, as Int32 slots. */
export const CONTROL = {
  /** Rows final so far: the worker may write rows below this. */
  rows: 0,
  /** RUNNING, ENDED (rows is the file's row count) or CANCELLED. */
  state: 1,
  /** Bumped on every change of the two above; the worker sleeps on it. */
  seq: 2,
  /** 1 once the worker is through with the file (renamed into place or removed). */
  done: 3,
} as const;
export const RUNNING = 0;
export const ENDED = 1;
export const CANCELLED = 2;

/** A column in shared memory, as the worker finds it. */
export interface SharedColumn {
  buffer: SharedArrayBuffer;
  byteOffset: number;
  length: number;
}

export interface EquityStreamJob {
  file: string;
  times: SharedColumn;
  equity: SharedColumn;
  cash: SharedColumn;
  benchmark: SharedColumn;
  intraday: boolean;
  control: SharedArrayBuffer;
}

/**
 * What the worker computes once equity.csv is written, from the same columns, while this thread
 * serializes the records and draws the report's lines: the metrics.
 */
export type SummaryJob = Omit<MetricsSource, "times" | "equity" | "benchmark"> & {
  initialCash: number;
};

export interface Summary {
  metrics: RunMetrics;
}

/** The worker's one message: how equity.csv's write ended, and the summary (null if none). */
export interface WorkerAnswer {
  equity: EquityOutcome;
  summary: Summary | null;
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

/** A column the worker can read in place: shared already, or copied into shared memory once. */
function shared(column: Float64Array): SharedColumn {
  if (column.buffer instanceof SharedArrayBuffer) {
    return { buffer: column.buffer, byteOffset: column.byteOffset, length: column.length };
  }
  const copy = sharedFloat64(column.length);
  copy.set(column);
  return { buffer: copy.buffer as SharedArrayBuffer, byteOffset: 0, length: column.length };
}

/** Longest a thread about to exit waits for the worker (it needs about a second for 1M rows). */
const FINISH_WAIT_MS = 10_000;

/** equity.csv being finished by the worker. */
export interface EquityWrite {
  /** The summary of `end`'s job: null when none was asked for, or the worker could not make it
   * (the caller computes it then). Never rejects. */
  summary: Promise<Summary | null>;
  /** Settles once the file is whole, flushed and renamed into place, or rejects with the error
   * the inline write would have thrown. */
  done: Promise<"worker" | "inline">;
  /** Blocks this thread until the worker is through with the file: a process about to exit (a
   * second Ctrl-C) must not leave the worker's temp file behind. */
  finishSync(): void;
}

/**
 * equity.csv written by a worker thread while the simulation runs. The columns live in shared
 * memory and a row is final once its bar has closed, so the runner tells the worker how far the
 * run got (`advance`, at each turn of the event loop) and the second core formats those rows
 * meanwhile; when the run ends (`end`) only the last rows are left. Formatting four numbers a row
 * is most of the write phase. A worker that cannot start, or dies
 * without an answer, leaves the file to this thread at the end, from the same columns.
 */
export class EquityStream {
  private readonly control: Int32Array;
  private readonly answer: Promise<WorkerAnswer | null>;
  private worker: Worker | null = null;
  private ended = false;

  private constructor(
    private readonly file: string,
    private readonly cols: EquityColumns,
  ) {
    this.control = new Int32Array(new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT));
    const job: EquityStreamJob = {
      file,
      times: shared(cols.times),
      equity: shared(cols.equity),
      cash: shared(cols.cash),
      benchmark: shared(cols.benchmark),
      intraday: cols.intraday,
      control: this.control.buffer as SharedArrayBuffer,
    };
    // A small young generation: the rows' text dies young, and a default-sized one would add tens
    // of megabytes to the run's peak memory.
    const options = { workerData: job, resourceLimits: { maxYoungGenerationSizeMb: 4 } };
    this.answer = new Promise<WorkerAnswer | null>((resolve) => {
      let worker: Worker;
      try {
        worker = startWorker(import.meta.url, "equity-csv-worker", options);
      } catch {
        resolve(null);
        return;
      }
      this.worker = worker;
      // Until the run ends the worker must not keep the process alive on its own.
      worker.unref();
      worker.once("message", (m: WorkerAnswer) => resolve(m));
      worker.once("error", () => resolve(null));
      worker.once("exit", () => resolve(null));
    });
  }

  /**
   * Starts the worker for columns that fill as bars close (all of `cols.times` and
   * `cols.benchmark` is final already); null for a run too short for one (`equityInWorker`).
   */
  static start(file: string, cols: EquityColumns): EquityStream | null {
    return equityInWorker(cols.equity.length) ? new EquityStream(file, cols) : null;
  }

  /** Rows below `rows` are final. */
  advance(rows: number): void {
    if (this.ended) return;
    this.signal(rows, RUNNING);
  }

  /** The run ended with `rows` rows: the worker finishes the file, then computes the summary of
   * `job` (a message sent before the signal, so the worker finds it waiting). */
  end(rows: number, job: SummaryJob | null = null): EquityWrite {
    this.ended = true;
    this.worker?.ref();
    if (job !== null) this.worker?.postMessage(job);
    this.signal(rows, ENDED);
    const inline = () => {
      const cut = (c: Float64Array) => c.subarray(0, rows);
      const { times, equity, cash, benchmark, intraday } = this.cols;
      writeEquityCsv(this.file, {
        times: cut(times),
        equity: cut(equity),
        cash: cut(cash),
        benchmark: cut(benchmark),
        intraday,
      });
      return "inline" as const;
    };
    const done = this.answer.then((answer) => {
      if (answer === null) return inline();
      if (!answer.equity.ok) throw rebuiltError(answer.equity);
      return "worker" as const;
    });
    const summary = this.answer.then((answer) => answer?.summary ?? null);
    return { done, summary, finishSync: () => this.waitDone() };
  }

  /** No equity.csv after all (the process exits at once): the worker removes its temp file, and
   * this thread blocks until it has. */
  cancelSync(): void {
    if (this.ended) {
      this.waitDone();
      return;
    }
    this.ended = true;
    this.signal(Atomics.load(this.control, CONTROL.rows), CANCELLED);
    this.waitDone();
  }

  private signal(rows: number, state: number): void {
    const c = this.control;
    // rows before state: a worker that reads ENDED reads the final row count after it.
    Atomics.store(c, CONTROL.rows, rows);
    Atomics.store(c, CONTROL.state, state);
    Atomics.add(c, CONTROL.seq, 1);
    Atomics.notify(c, CONTROL.seq);
  }

  private waitDone(): void {
    if (this.worker === null) return;
    Atomics.wait(this.control, CONTROL.done, 0, FINISH_WAIT_MS);
  }
}
