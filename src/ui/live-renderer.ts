import { Worker } from "node:worker_threads";
import type { RunEvent } from "../runner/run-events.js";
import { CLOSED, type FrameMessage, READY } from "./live-frames.js";
import { foldLiveEvent, initialLiveState, type LiveBudget } from "./live-state.js";

/** At most 10 frames a second: events are folded at once, frames sent on this tick. */
export const FRAME_MS = 100;

export interface LiveRendererOptions {
  /** The view's worker (default: the bundle the build makes beside this module). */
  workerUrl?: URL;
  /** Where the line saying the view failed goes (default: stderr). */
  warn?: (line: string) => void;
}

export interface LiveRenderer {
  onEvent(event: RunEvent): void;
  /** A line about the run itself (Ctrl-C), shown in the view rather than written over it. */
  notice(text: string): void;
  /** Draws the final frame and waits until it is on screen, for the summary to follow below. */
  close(): Promise<void>;
  /** Why the view's worker failed, once it has (close() then says so on stderr); null if not. */
  failure(): string | null;
}

/**
 * The ink live view on the terminal on fd 1 (the caller checks it is one). This thread only folds
 * events into the view state (in place) and, at most every FRAME_MS, hands the state
 * to a worker thread that loads ink and draws: the run pays neither ink's start-up nor its
 * layout. The timer is unref'd, so it never keeps the process alive. `budget`: an LLM run's
 * `--max-cost` / `--max-tokens`, for the budget left.
 */
export function liveRenderer(
  budget: LiveBudget | null = null,
  opts: LiveRendererOptions = {},
): LiveRenderer {
  const t0 = performance.now();
  const warn = opts.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  let failure: string | null = null;
  const state = initialLiveState(budget);
  let notice: string | null = null;
  let dirty = false;
  let alive = true;
  let ready = false;
  // The worker is live-view-worker.tsx bundled with ink and React by the build
  // (scripts/bundle-live-view.mjs): one file loads in a quarter of the time and CPU.
  const worker = new Worker(opts.workerUrl ?? new URL("./live-view.bundle.js", import.meta.url));
  worker.unref();
  const gone = new Promise<void>((resolve) => {
    worker.on("message", (m) => {
      if (m === READY) ready = true;
      if (m === CLOSED) resolve();
    });
    // A view that cannot draw must not take the run down: the summary still prints, after a
    // line saying why there was no view.
    worker.on("error", (err) => {
      failure = err instanceof Error ? err.message : String(err);
      resolve();
    });
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
    failure: () => failure,
    close() {
      if (closing) return closing;
      clearInterval(timer);
      // A run that ended before ink loaded shows no view at all (its summary follows at once)
      // rather than waiting for ink.
      const reported = () => {
        if (failure !== null) {
          warn(
            `agenticbt: the live view could not draw (${failure.split("\n")[0]}); the run itself was not affected. --no-ui prints plain progress lines instead.`,
          );
        }
      };
      if (!ready) {
        closing = worker.terminate().then(reported);
        return closing;
      }
      send(true);
      closing = gone.then(() => worker.terminate()).then(reported);
      return closing;
    },
  };
}
