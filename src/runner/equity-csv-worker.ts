// A worker thread's entry: writes one equity.csv for writeEquityCsvInWorker (write-outputs.ts),
// from its columns (shared, or packed in one transferred buffer: jobColumns), and posts how it
// ended.
import { parentPort, workerData } from "node:worker_threads";
import {
  type EquityJob,
  type EquityOutcome,
  errorOutcome,
  jobColumns,
  writeEquityRows,
} from "./write-outputs.js";

const job = workerData as EquityJob;
const c = jobColumns(job);
let outcome: EquityOutcome;
try {
  writeEquityRows(job.file, c.times, c.equity, c.cash, c.benchmark, job.intraday);
  outcome = { ok: true };
} catch (err) {
  outcome = errorOutcome(err);
}
// Written, renamed or cleaned up: a thread blocked on this before the process exits may go on.
const finished = new Int32Array(job.finished);
Atomics.store(finished, 0, 1);
Atomics.notify(finished, 0);
parentPort?.postMessage(outcome);
