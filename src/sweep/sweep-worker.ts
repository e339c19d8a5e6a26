// A worker thread's entry: loads the strategy once, then runs the combinations it is sent through
// its own CombinationRunner (its indicator cache lives as long as the thread), posting each
// outcome with its equity column moved, not copied.
import { parentPort, workerData } from "node:worker_threads";
import { loadStrategy } from "../runner/load-strategy.js";
import { CombinationRunner } from "./run-combination.js";
import type { FromWorker, ToWorker, WorkerSetup } from "./worker-pool.js";

const setup = workerData as WorkerSetup;
const post = (m: FromWorker, transfer: ArrayBuffer[] = []) => parentPort?.postMessage(m, transfer);

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
      const equity = run.equity;
      post(
        { kind: "result", outcome: run.outcome, equity },
        equity ? [equity.buffer as ArrayBuffer] : [],
      );
    }
    post({ kind: "idle" });
  });
  post({ kind: "idle" });
}

void main();
