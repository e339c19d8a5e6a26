import path from "node:path";
import { Worker } from "node:worker_threads";
import { expect, it } from "vitest";
import { sweep } from "../../src/index.js";

// Worker threads give the same outcomes as this thread alone: every combination's line is equal
// with jobs 1 and jobs 2 (a grid long enough for the workers to be started).
const ROOT = path.resolve(import.meta.dirname, "..", "..");
const options = {
  strategy: path.join(ROOT, "strategies", "sma-crossover.ts"),
  data: [path.join(ROOT, "data", "GOOG.csv")],
  broker: { allowShort: true, commissionRate: 0.001 },
  params: { longShort: true },
  grid: { fast: "2:50:1", slow: "10:300:3" },
  constraint: "fast < slow",
};

it("runs the same combinations to the same outcomes on worker threads", async () => {
  let started = 0;
  const original = Worker.prototype.postMessage;
  // Counts the batches handed to workers (the data itself goes once, in workerData).
  Worker.prototype.postMessage = function (
    this: Worker,
    ...args: Parameters<Worker["postMessage"]>
  ) {
    started++;
    return original.apply(this, args);
  };
  let two: Awaited<ReturnType<typeof sweep>>;
  try {
    two = await sweep({ ...options, jobs: 2 });
  } finally {
    Worker.prototype.postMessage = original;
  }
  const one = await sweep({ ...options, jobs: 1 });
  expect(one.results.length).toBeGreaterThan(3000);
  expect(started).toBeGreaterThan(0);
  expect(two.results).toEqual(one.results);
  expect(two.summary).toEqual(one.summary);
}, 300_000);
