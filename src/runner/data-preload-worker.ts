// A worker thread's entry: loads a run's data files for DataPreload (data-preload.ts) and posts
// them, their columns moved; null when loadData throws (the runner then loads them itself and
// reports that error). Before that, the bytes parsed so far, at once and then at most every
// LOADING_EVERY_MS; and, while the live view cannot draw yet, the loading line on fd 1.
import fs from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import {
  LINE_DRAW,
  LINE_DRAWN,
  LINE_KIB,
  LINE_MS,
  movableBuffers,
  type PreloadMessage,
  type PreloadWork,
} from "./data-preload.js";
import { loadData } from "./load-data.js";
import { CLEAR_LINE, LOADING_EVERY_MS, loadingLine } from "./run-events.js";

const work = workerData as PreloadWork;
const post = (m: PreloadMessage, transfer: ArrayBuffer[] = []) =>
  parentPort?.postMessage(m, transfer);
const bytesTotal = work.bytesTotal;
const t0 = performance.now();
let lastPost = -Infinity;
const onRead = (bytes: number) => {
  const now = performance.now();
  if (now - lastPost < LOADING_EVERY_MS) return;
  lastPost = now;
  const elapsedMs = now - t0;
  post({ kind: "read", bytes, elapsedMs });
  if (Atomics.load(work.line, LINE_DRAW) === 1) {
    const text = loadingLine({ type: "loading", bytesRead: bytes, bytesTotal, elapsedMs });
    // One write: at the line's start, the line cleared, cut short of the last column.
    fs.writeSync(1, `${CLEAR_LINE}${text.slice(0, work.columns - 1)}`);
    // What the line shows, for the view that takes over from it (it must not show less).
    Atomics.store(work.line, LINE_KIB, Math.floor(bytes / 1024));
    Atomics.store(work.line, LINE_MS, Math.floor(elapsedMs));
    Atomics.store(work.line, LINE_DRAWN, 1);
  }
};

let answer: PreloadMessage = { kind: "loaded", loaded: null };
let transfer: ArrayBuffer[] = [];
try {
  onRead(0);
  const loaded = loadData(work.options, onRead);
  answer = { kind: "loaded", loaded };
  transfer = movableBuffers(loaded);
} catch {
  // Reported by the runner's own load.
}
post(answer, transfer);
