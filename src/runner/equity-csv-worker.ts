// A worker thread's entry: writes one equity.csv for writeEquityCsvInWorker (write-outputs.ts),
// from four columns packed in one transferred buffer, and posts how it ended.
import { parentPort, workerData } from "node:worker_threads";
import {
  type EquityJob,
  type EquityOutcome,
  errorOutcome,
  writeEquityCsv,
} from "./write-outputs.js";

const job = workerData as EquityJob;
const column = (k: number) => new Float64Array(job.columns, k * job.rows * 8, job.rows);
let outcome: EquityOutcome;
try {
  writeEquityCsv(job.file, column(0), column(1), column(2), column(3), job.intraday);
  outcome = { ok: true };
} catch (err) {
  outcome = errorOutcome(err);
}
parentPort?.postMessage(outcome);
