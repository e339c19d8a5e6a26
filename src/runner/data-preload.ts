import fs from "node:fs";
import os from "node:os";
import type { Worker } from "node:worker_threads";
import { startWorker } from "../util/start-worker.js";
import type { LoadedData } from "./load-data.js";
import type { RunConfig } from "./run-config.js";

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

/** The worker's one message: the data, or null when loadData threw there. */
export interface PreloadAnswer {
  loaded: LoadedData | null;
}

/**
 * The run's data files parsed by a worker thread, started as soon as the command line is read:
 * the parse (half a second at a million rows) runs on the second core while this thread loads
 * the runner's modules and the strategy. The columns come back moved, not copied. Anything that
 * goes wrong there leaves the load to this thread (`result()` gives null), which then reports
 * the very error an inline load reports: the worker's error is never shown.
 */
export class DataPreload {
  private readonly answer: Promise<LoadedData | null>;

  private constructor(private readonly worker: Worker) {
    this.answer = new Promise<LoadedData | null>((resolve) => {
      worker.once("message", (m: PreloadAnswer) => resolve(m.loaded));
      worker.once("error", () => resolve(null));
      worker.once("exit", () => resolve(null));
    });
    // A preload nobody waits for must not keep the process alive.
    worker.unref();
  }

  /** A worker for files of PRELOAD_MIN_BYTES or more on a machine with a second core; else null. */
  static start(options: DataOptions): DataPreload | null {
    if (os.availableParallelism() < 2) return null;
    let bytes = 0;
    for (const spec of options.data) {
      try {
        bytes += fs.statSync(spec.file).size;
      } catch {
        return null;
      }
    }
    if (bytes < PRELOAD_MIN_BYTES) return null;
    try {
      return new DataPreload(
        startWorker(import.meta.url, "data-preload-worker", {
          workerData: options,
        }),
      );
    } catch {
      return null;
    }
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
