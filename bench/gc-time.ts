import { PerformanceObserver } from "node:perf_hooks";

/**
 * Garbage-collection time so far in this thread, in milliseconds: a clock to read before and
 * after what is measured. GC entries arrive on a later turn of the event loop, so yield once
 * (setImmediate) before the second reading.
 */
export function gcClock(): () => number {
  let ms = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) ms += e.duration;
  }).observe({ entryTypes: ["gc"] });
  return () => ms;
}
