// A worker thread's entry: writes one run's equity.csv for EquityStream (equity-stream.ts) as the
// simulation closes bars, from columns in shared memory; then computes the run's metrics from the
// same columns, and posts how it all ended.
import { parentPort, receiveMessageOnPort, workerData } from "node:worker_threads";
import { writeTextAtomic } from "../util/atomic-write.js";
import { EQUITY_CSV_HEADER, EquityCsvRows } from "./equity-csv.js";
import {
  CANCELLED,
  CONTROL,
  ENDED,
  type EquityOutcome,
  type EquityStreamJob,
  errorOutcome,
  type SharedColumn,
  type Summary,
  type SummaryJob,
} from "./equity-stream.js";
import { computeRunMetrics } from "./run-metrics.js";

/** Rows written between two looks at the control block: a cancel is seen within milliseconds. */
const BATCH = 1 << 14;
/** How long the thread sleeps without news before it looks again anyway. */
const POLL_MS = 500;

class Cancelled extends Error {}

const job = workerData as EquityStreamJob;
const control = new Int32Array(job.control);
const column = (c: SharedColumn) => new Float64Array(c.buffer, c.byteOffset, c.length);
const columns = {
  times: column(job.times),
  equity: column(job.equity),
  cash: column(job.cash),
  benchmark: column(job.benchmark),
  intraday: job.intraday,
};
const rows = new EquityCsvRows(columns);

let outcome: EquityOutcome;
try {
  writeTextAtomic(job.file, (out) => {
    out.write(EQUITY_CSV_HEADER);
    for (;;) {
      const seq = Atomics.load(control, CONTROL.seq);
      const state = Atomics.load(control, CONTROL.state);
      if (state === CANCELLED) throw new Cancelled();
      const ready = Atomics.load(control, CONTROL.rows);
      if (ready > rows.written) rows.writeTo(out, Math.min(ready, rows.written + BATCH));
      else if (state === ENDED) return;
      else Atomics.wait(control, CONTROL.seq, seq, POLL_MS);
    }
  });
  outcome = { ok: true };
} catch (err) {
  // A cancelled write's temp file is gone (writeTextAtomic removes it); nobody reads the answer.
  outcome = errorOutcome(err);
}
// Written, renamed or cleaned up: a thread blocked on this before the process exits may go on.
Atomics.store(control, CONTROL.done, 1);
Atomics.notify(control, CONTROL.done);
parentPort?.postMessage({ equity: outcome, summary: outcome.ok ? summary(rows.written) : null });

/** The job the runner sent before it ended the stream, computed over the file's rows (null: no
 * job, or it failed: the runner computes it then, and reports any error as it would have). */
function summary(count: number): Summary | null {
  const message = parentPort ? receiveMessageOnPort(parentPort) : undefined;
  if (message === undefined) return null;
  try {
    const s = message.message as SummaryJob;
    const cut = (c: Float64Array) => c.subarray(0, count);
    const curve = {
      times: cut(columns.times),
      equity: cut(columns.equity),
      benchmark: cut(columns.benchmark),
    };
    return { metrics: computeRunMetrics({ ...s, ...curve }, s.initialCash) };
  } catch {
    return null;
  }
}
