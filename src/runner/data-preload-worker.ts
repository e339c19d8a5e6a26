// A worker thread's entry: loads a run's data files for DataPreload (data-preload.ts) and posts
// them, their columns moved; null when loadData throws (the runner then loads them itself and
// reports that error).
import { parentPort, workerData } from "node:worker_threads";
import { type DataOptions, movableBuffers, type PreloadAnswer } from "./data-preload.js";
import { loadData } from "./load-data.js";

let answer: PreloadAnswer = { loaded: null };
let transfer: ArrayBuffer[] = [];
try {
  const loaded = loadData(workerData as DataOptions);
  answer = { loaded };
  transfer = movableBuffers(loaded);
} catch {
  // Reported by the runner's own load.
}
parentPort?.postMessage(answer, transfer);
