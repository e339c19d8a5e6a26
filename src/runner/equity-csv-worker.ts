// A worker thread's entry: writes one run's equity.csv for EquityStream (equity-stream.ts) as the
// simulation closes bars, from columns in shared memory, and posts how it ended.
import { parentPort, workerData } from "node:worker_threads";
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
} from "./equity-stream.js";

/** Rows written between two looks at the control block: a cancel is seen within milliseconds. */
const BATCH = 1 << 14;
/** How long the thread sleeps without news before it looks again anyway. */
const POLL_MS = 500;

class Cancelled extends Error {}

const job = workerData as EquityStreamJob;
const control = new Int32Array(job.control);
const column = (c: SharedColumn) => new Float64Array(c.buffer, c.byteOffset, c.length);
const rows = new EquityCsvRows({
  times: column(job.times),
  equity: column(job.equity),
  cash: column(job.cash),
  benchmark: column(job.benchmark),
  intraday: job.intraday,
});

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
parentPort?.postMessage(outcome);
