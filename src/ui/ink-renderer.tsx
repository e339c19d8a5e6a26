import { type Instance, render } from "ink";
import type { RunEvent } from "../runner/run-events.js";
import { initialLiveState, liveState } from "./live-state.js";
import { LiveView } from "./live-view.js";

/** At most 10 frames a second: events are folded at once, frames drawn on this tick. */
export const FRAME_MS = 100;

export interface LiveRenderer {
  onEvent(event: RunEvent): void;
  /** A line about the run itself (Ctrl-C), shown in the view rather than written over it. */
  notice(text: string): void;
  /** Draws the final frame and unmounts, leaving it on screen for the summary below it. */
  close(): Promise<void>;
}

/**
 * The ink live view on `stdout` (a TTY: the caller checks). Folding an event is a shallow copy;
 * drawing happens on an unref'd timer, so a fast run is not slowed by frames and a finished run
 * does not wait for one. Nothing is drawn before the run starts (bad input prints its error
 * alone).
 */
export function inkRenderer(stdout: NodeJS.WriteStream): LiveRenderer {
  const t0 = performance.now();
  let state = initialLiveState();
  let notice: string | null = null;
  let dirty = false;
  let instance: Instance | null = null;
  let closed = false;
  const view = () => <LiveView state={state} elapsedMs={performance.now() - t0} notice={notice} />;
  const draw = () => {
    dirty = false;
    if (instance) instance.rerender(view());
    // No input is read: stdin stays cooked, so Ctrl-C is a SIGINT for the run's own handler.
    else
      instance = render(view(), {
        stdout,
        patchConsole: false,
        exitOnCtrlC: false,
        maxFps: 1000 / FRAME_MS,
      });
  };
  const timer = setInterval(() => {
    if (dirty) draw();
  }, FRAME_MS);
  timer.unref();
  return {
    onEvent(event) {
      if (closed) return;
      state = liveState(state, event);
      dirty = true;
    },
    notice(text) {
      notice = text;
      dirty = true;
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      if (dirty || instance) draw();
      const shown = instance;
      if (!shown) return;
      const exited = shown.waitUntilExit();
      shown.unmount();
      await exited;
    },
  };
}
