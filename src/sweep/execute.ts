import type { PreparedSweep } from "./plan.js";
import type { CombinationRun } from "./run-combination.js";
import { sweepEngine, type WorkItem } from "./worker-pool.js";

/** A handle on a running sweep: `stop()` hands out no more combinations (those under way end). */
export interface SweepHandle {
  stop(): void;
}

export interface ExecuteOptions {
  jobs: number;
  strategyPath: string | null;
  skip?: ReadonlySet<number>;
  onRun: (run: CombinationRun) => void;
  onStart?: (handle: SweepHandle) => void;
}

/**
 * Runs the combinations not in `skip` (a resume's finished ones), telling `onRun` each as it
 * arrives: on this thread and `jobs` − 1 worker threads (a strategy file; a strategy object runs
 * here alone). Returns
 * whether it was stopped before every combination ran.
 */
export async function executeSweep(
  p: PreparedSweep,
  o: ExecuteOptions,
): Promise<{ stopped: boolean }> {
  const skip = o.skip ?? new Set<number>();
  const items: WorkItem[] = [];
  p.combos.forEach((settings, index) => {
    if (!skip.has(index)) items.push({ index, settings });
  });
  // This thread runs combinations too: `jobs` threads in all.
  const workers = o.strategyPath !== null && items.length > 1 ? o.jobs - 1 : 0;
  const engine = sweepEngine(
    { data: p.data, strategyPath: o.strategyPath, base: p.base, axes: p.axes },
    p.strategy,
    workers,
  );
  let stopped = false;
  o.onStart?.({
    stop() {
      stopped = true;
      engine.stop();
    },
  });
  let ran = 0;
  await engine.run(items, (run) => {
    ran++;
    o.onRun(run);
  });
  return { stopped: stopped && ran < items.length };
}
