// A worker thread's entry: writes one equity.csv for writeEquityCsvInWorker (write-outputs.ts),
// from the columns packed in one transferred buffer (jobColumns), and posts how it ended.
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
parentPort?.postMessage(outcome);
