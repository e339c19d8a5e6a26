import { Worker } from "node:worker_threads";
import type { RunEvent } from "../runner/run-events.js";
import { CLOSED, type FrameMessage, READY } from "./live-frames.js";
import { foldLiveEvent, initialLiveState, type LiveBudget } from "./live-state.js";

/** At most 10 frames a second: events are folded at once, frames sent on this tick. */
export const FRAME_MS = 100;

export interface LiveRenderer {
  onEvent(event: RunEvent): void;
  /** A line about the run itself (Ctrl-C), shown in the view rather than written over it. */
  notice(text: string): void;
  /** Draws the final frame and waits until it is on screen, for the summary to follow below. */
  close(): Promise<void>;
}

/**
 * The ink live view on the terminal on fd 1 (the caller checks it is one). This thread only folds
 * events into the view state (in place) and, at most every FRAME_MS, hands the state
 * to a worker thread that loads ink and draws: the run pays neither ink's start-up nor its
 * layout. The timer is unref'd, so it never keeps the process alive. `budget`: an LLM run's
 * `--max-cost` / `--max-tokens`, for the budget left.
 */
export function liveRenderer(budget: LiveBudget | null = null): LiveRenderer {
  const t0 = performance.now();
  const state = initialLiveState(budget);
  let notice: string | null = null;
  let dirty = false;
  let alive = true;
  let ready = false;
  // The worker is live-view-worker.tsx bundled with ink and React by the build
  // (scripts/bundle-live-view.mjs): one file loads in a quarter of the time and CPU.
  const worker = new Worker(new URL("./live-view.bundle.js", import.meta.url));
  worker.unref();
  const gone = new Promise<void>((resolve) => {
    worker.on("message", (m) => {
      if (m === READY) ready = true;
      if (m === CLOSED) resolve();
    });
    // A view that cannot draw must not take the run down: the summary still prints.
    worker.on("error", () => resolve());
    worker.on("exit", () => resolve());
  }).then(() => {
    alive = false;
  });
  const send = (last: boolean) => {
    dirty = false;
    if (!alive) return;
    const frame: FrameMessage = { state, elapsedMs: performance.now() - t0, notice, last };
    worker.postMessage(frame);
  };
  const timer = setInterval(() => {
    if (dirty) send(false);
  }, FRAME_MS);
  timer.unref();
  let closing: Promise<void> | null = null;
  return {
    onEvent(event) {
      foldLiveEvent(state, event);
      dirty = true;
    },
    notice(text) {
      notice = text;
      dirty = true;
    },
    close() {
      if (closing) return closing;
      clearInterval(timer);
      // A run that ended before ink loaded shows no view at all (its summary follows at once)
      // rather than waiting for ink.
      if (!ready) {
        closing = worker.terminate().then(() => undefined);
        return closing;
      }
      send(true);
      closing = gone.then(() => worker.terminate()).then(() => undefined);
      return closing;
    },
  };
}
