// A worker thread's entry: loads the strategy once, then runs the combinations it is sent through
// its own CombinationRunner (its indicator cache lives as long as the thread), posting each
// outcome with its equity column (shared memory, so not copied).
import { parentPort, workerData } from "node:worker_threads";
import { loadStrategy } from "../runner/load-strategy.js";
import { CombinationRunner } from "./run-combination.js";
import type { FromWorker, ToWorker, WorkerSetup } from "./worker-pool.js";

const setup = workerData as WorkerSetup;
const post = (m: FromWorker) => parentPort?.postMessage(m);

async function main(): Promise<void> {
  let runner: CombinationRunner;
  try {
    const strategy = await loadStrategy(setup.strategyPath);
    runner = new CombinationRunner(setup.data, strategy, setup.base, setup.axes);
  } catch (err) {
    post({ kind: "fatal", message: (err as Error).message });
    return;
  }
  parentPort?.on("message", async (m: ToWorker) => {
    for (const item of m.items) {
      const run = await runner.run(item.index, item.settings);
      // The equity column is shared memory: posted, not copied.
      post({ kind: "result", outcome: run.outcome, equity: run.equity, lease: run.lease });
    }
    post({ kind: "idle" });
  });
  post({ kind: "idle" });
}

void main();
