import type { LiveState } from "./live-state.js";

/** A frame for the live view's worker to draw; `last` ends it (the frame stays on screen). */
export interface FrameMessage {
  state: LiveState;
  elapsedMs: number;
  notice: string | null;
  last: boolean;
}

/** What the worker says once ink has loaded and it can draw. */
export const READY = "ready";

/** What the worker answers once the last frame is on the terminal. */
export const CLOSED = "closed";
