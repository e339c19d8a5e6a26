import type { Worker } from "node:worker_threads";
import type { MarketData } from "../engine/types.js";
import type { Strategy } from "../strategy/types.js";
import { startWorker } from "../util/start-worker.js";
import type { Axis, Combination } from "./axes.js";
import {
  type CombinationOutcome,
  type CombinationRun,
  CombinationRunner,
  type SweepBase,
} from "./run-combination.js";

/** What a worker is started with (its data's columns are shared memory). */
export interface WorkerSetup {
  data: MarketData;
  strategyPath: string;
  base: SweepBase;
  axes: Axis[];
}

export interface WorkItem {
  index: number;
  settings: Combination;
}

export type ToWorker = { items: WorkItem[] };
export type FromWorker =
  | {
      kind: "result";
      outcome: CombinationOutcome;
      equity: Float64Array | null;
      lease: Int32Array | null;
    }
  | { kind: "idle" }
  | { kind: "fatal"; message: string };

/** A sweep's workers stopped: a worker could not start (its strategy failed to load…). */
export class SweepWorkerError extends Error {
  override readonly name = "SweepWorkerError";
}

/** How the combinations run: in this thread, or on worker threads. */
export interface SweepEngine {
  /** Runs every item, telling `onRun` each outcome as it arrives; stops handing out work after
   * `stop()` (the items under way finish). */
  run(items: readonly WorkItem[], onRun: (run: CombinationRun) => void): Promise<void>;
  stop(): void;
}

/** Work left (ms, at this thread's pace) above which worker threads are started. */
const WORKER_WORTH_MS = 1000;

/** Lets the event loop turn (a worker's messages are handled between this thread's runs). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The combinations run by this thread and `workers` worker threads sharing the data (its columns
 * in shared memory), each taking batches from one queue; batches shrink toward the end so the
 * threads finish together. This thread works too, from the start: a small sweep is done before a
 * worker has booted, and a large one uses every core. No workers: this thread alone (one job, or
 * a strategy object, which cannot be sent to a thread).
 */
export function sweepEngine(
  setup: Omit<WorkerSetup, "strategyPath"> & { strategyPath: string | null },
  strategy: Strategy<unknown>,
  workers: number,
): SweepEngine {
  let stopped = false;
  const started: Worker[] = [];
  return {
    stop() {
      stopped = true;
    },
    run(items, onRun) {
      let next = 0;
      const threads = 1 + workers;
      const batchOf = (most: number) => {
        const left = items.length - next;
        const size = Math.max(1, Math.min(most, Math.ceil(left / (threads * 4))));
        const batch = items.slice(next, next + size);
        next += batch.length;
        return batch;
      };
      return new Promise<void>((resolve, reject) => {
        let running = 1;
        let failed = false;
        const done = () => {
          running--;
          if (running === 0 && !failed) resolve();
        };
        const fail = (err: Error) => {
          if (failed) return;
          failed = true;
          for (const w of started) void w.terminate();
          reject(err);
        };
        const spawn = () => {
          const path = setup.strategyPath;
          for (let k = 0; k < workers && path !== null; k++) {
            running++;
            startOne(path);
          }
        };
        const startOne = (path: string) => {
          const w = startWorker(import.meta.url, "sweep-worker", {
            workerData: { ...setup, strategyPath: path } satisfies WorkerSetup,
          });
          started.push(w);
          let finished = false;
          const end = () => {
            if (finished) return;
            finished = true;
            void w.terminate();
            done();
          };
          w.on("message", (m: FromWorker) => {
            switch (m.kind) {
              case "result":
                // The caller's own failure (a full disk writing results) ends the sweep with it.
                try {
                  onRun({ outcome: m.outcome, equity: m.equity, lease: m.lease });
                } catch (err) {
                  fail(err as Error);
                }
                return;
              case "idle": {
                const batch = stopped || failed ? [] : batchOf(32);
                if (batch.length === 0) end();
                else w.postMessage({ items: batch } satisfies ToWorker);
                return;
              }
              case "fatal":
                finished = true;
                fail(new SweepWorkerError(m.message));
                return;
            }
          });
          w.on("exit", (code) => {
            if (finished) return;
            fail(
              new SweepWorkerError(`a sweep worker exited (code ${code}) before its work was done`),
            );
          });
          w.on("error", (err) =>
            fail(new SweepWorkerError(`a sweep worker stopped: ${err.message}`)),
          );
        };
        const runner = new CombinationRunner(setup.data, strategy, setup.base, setup.axes);
        const here = async () => {
          let ran = 0;
          let spawned = workers === 0;
          let fastest = Number.POSITIVE_INFINITY;
          const began = performance.now();
          for (;;) {
            // One at a time for the first few runs, while the workers are decided on: the pace
            // is known sooner.
            const batch = stopped || failed ? [] : batchOf(spawned || ran >= 8 ? 4 : 1);
            if (batch.length === 0) return;
            const t0 = performance.now();
            for (const item of batch) onRun(await runner.run(item.index, item.settings));
            ran += batch.length;
            // Workers only when the work left would keep this thread busy longer than one takes
            // to boot (its modules, the strategy compiled again, its code cold): a small sweep is
            // over sooner without them. The pace is the fastest batch so far per run, in wall
            // time: a busy machine stretches some batches, not the fastest, and the first runs
            // compile the code they go through (the first tens of ms, the next few several).
            // Not CPU time: process.cpuUsage() took 0.3-2 ms a call here (a fresh sweep process,
            // its loader thread alive), 15-60 ms of a 175-combination sweep's 250. Trusted after
            // a quarter of a second, sooner when runs are long (after the first alone when very
            // long).
            if (!spawned) {
              fastest = Math.min(fastest, (performance.now() - t0) / batch.length);
              const known =
                fastest > 250 ||
                (ran >= 2 && fastest > 50) ||
                (ran >= 8 && performance.now() - began >= 250);
              if (known && fastest * (items.length - next) > WORKER_WORTH_MS) spawn();
              if (known) spawned = true;
            }
            await turn();
          }
        };
        here().then(done, fail);
      });
    },
  };
}
