import fs from "node:fs";
import os from "node:os";
import type { Worker } from "node:worker_threads";
import { assertNever } from "../util/assert-never.js";
import { startWorker } from "../util/start-worker.js";
import type { LoadedData } from "./load-data.js";
import type { RunConfig } from "./run-config.js";
import type { LoadingEvent } from "./run-events.js";

/** The options loadData reads. */
export type DataOptions = Pick<
  RunConfig,
  "data" | "from" | "to" | "strict" | "tz" | "timeUnit" | "dateFormat" | "columns"
>;

/**
 * From this many bytes of data files (about 100,000 rows) a run parses them in a worker thread;
 * below it, the worker's start-up costs more than the parse.
 */
export const PRELOAD_MIN_BYTES = 4 << 20;

/**
 * The files' size (bytes) when a run would parse them in a worker: PRELOAD_MIN_BYTES or more on
 * a machine with a second core. Null otherwise, or when a file cannot be read.
 */
export function preloadBytes(files: readonly string[]): number | null {
  if (os.availableParallelism() < 2) return null;
  let bytes = 0;
  for (const file of files) {
    try {
      bytes += fs.statSync(file).size;
    } catch {
      return null;
    }
  }
  return bytes < PRELOAD_MIN_BYTES ? null : bytes;
}

/** What the worker is started with: the options, and the loading line's flags (LINE_*). */
export interface PreloadWork {
  options: DataOptions;
  line: Int32Array;
  /** The terminal's width for the loading line. */
  columns: number;
  /** The files' size (bytes). */
  bytesTotal: number;
}

/** In PreloadWork's `line`: whether the worker draws the loading line on fd 1 (1) or not. */
export const LINE_DRAW = 0;
/** In PreloadWork's `line`: 1 once the worker has drawn one (it is on the cursor's line). */
export const LINE_DRAWN = 1;
/** In PreloadWork's `line`: the KiB read and the milliseconds the last line it drew shows. */
export const LINE_KIB = 2;
export const LINE_MS = 3;
/** PreloadWork's `line`: its slots (LINE_*). */
const LINE_SLOTS = 4;

/** The worker's messages: bytes parsed so far (any number), then the data, or null when
 * loadData threw there. */
export type PreloadMessage =
  | { kind: "read"; bytes: number; elapsedMs: number }
  | { kind: "loaded"; loaded: LoadedData | null };

/**
 * The run's data files parsed by a worker thread, started as soon as the command line is read:
 * the parse (half a second at a million rows) runs on the second core while this thread loads
 * the runner's modules and the strategy. The columns come back moved, not copied. Anything that
 * goes wrong there leaves the load to this thread (`result()` gives null), which then reports
 * the very error an inline load reports: the worker's error is never shown.
 */
export class DataPreload {
  private readonly answer: Promise<LoadedData | null>;
  /** The latest progress, kept until someone listens; then handed on as it comes. */
  private latest: LoadingEvent | null = null;
  private listener: ((e: LoadingEvent) => void) | null = null;
  private done = false;

  private constructor(
    private readonly worker: Worker,
    private readonly bytesTotal: number,
    private readonly line: Int32Array,
  ) {
    this.answer = new Promise<LoadedData | null>((resolve) => {
      const settle = (loaded: LoadedData | null) => {
        this.done = true;
        resolve(loaded);
      };
      worker.on("message", (m: PreloadMessage) => {
        switch (m.kind) {
          case "read":
            this.progress(m.bytes, m.elapsedMs);
            return;
          case "loaded":
            settle(m.loaded);
            return;
          default:
            assertNever(m, "preload message");
        }
      });
      worker.once("error", () => settle(null));
      worker.once("exit", () => settle(null));
    });
    // A preload nobody waits for must not keep the process alive.
    worker.unref();
  }

  /** A worker for files of PRELOAD_MIN_BYTES or more on a machine with a second core; else null. */
  static start(options: DataOptions): DataPreload | null {
    const bytes = preloadBytes(options.data.map((spec) => spec.file));
    if (bytes === null) return null;
    try {
      const line = new Int32Array(new SharedArrayBuffer(LINE_SLOTS * 4));
      const work: PreloadWork = {
        options,
        line,
        columns: process.stdout.columns || 80,
        bytesTotal: bytes,
      };
      return new DataPreload(
        startWorker(import.meta.url, "data-preload-worker", { workerData: work }),
        bytes,
        line,
      );
    } catch {
      return null;
    }
  }

  private progress(bytesRead: number, elapsedMs: number): void {
    if (this.done) return;
    const e: LoadingEvent = {
      type: "loading",
      bytesRead: Math.min(bytesRead, this.bytesTotal),
      bytesTotal: this.bytesTotal,
      elapsedMs,
    };
    if (this.listener) this.listener(e);
    else this.latest = e;
  }

  /** `loading` events from now until the data is loaded (the latest one at once, if any). */
  onLoading(listener: (e: LoadingEvent) => void): void {
    this.listener = listener;
    const e = this.latest;
    this.latest = null;
    if (e !== null && !this.done) listener(e);
  }

  /**
   * The worker draws the loading line itself on fd 1 (on: true) until told to stop: it shows
   * from the load's first piece, while this thread is busy loading the runner's modules and the
   * view's process (at a low priority) is loading ink.
   */
  loadingLine(): {
    draw(on: boolean): void;
    drawn(): boolean;
    lastDrawn(): LoadingEvent | null;
  } {
    return {
      draw: (on) => Atomics.store(this.line, LINE_DRAW, on ? 1 : 0),
      drawn: () => Atomics.load(this.line, LINE_DRAWN) === 1,
      lastDrawn: () =>
        Atomics.load(this.line, LINE_DRAWN) === 1
          ? {
              type: "loading",
              bytesRead: Math.min(Atomics.load(this.line, LINE_KIB) * 1024, this.bytesTotal),
              bytesTotal: this.bytesTotal,
              elapsedMs: Atomics.load(this.line, LINE_MS),
            }
          : null,
    };
  }

  /** The data the worker loaded, or null: load it in this thread. */
  result(): Promise<LoadedData | null> {
    this.worker.ref();
    return this.answer;
  }
}

/** The buffers behind a load's columns that can be moved to another thread (shared ones are
 * shared already). */
export function movableBuffers(loaded: LoadedData): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  const add = (a: Float64Array | Int32Array) => {
    if (a.buffer instanceof ArrayBuffer) out.add(a.buffer);
  };
  const { data } = loaded;
  add(data.times);
  for (const s of data.series) {
    for (const c of [s.time, s.open, s.high, s.low, s.close, s.volume]) add(c);
  }
  for (const b of data.barIndex) add(b);
  return [...out];
}
