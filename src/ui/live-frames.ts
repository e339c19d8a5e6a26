import type { LiveState } from "./live-state.js";

/** A frame for the live view's process to draw; `last` ends it (the frame stays on screen). */
export interface FrameMessage {
  state: LiveState;
  elapsedMs: number;
  notice: string | null;
  last: boolean;
  /** A loading line drawn by the data's worker is on the cursor's line: ink's first frame
   * clears it first. */
  rawLine: boolean;
}

/** What the view's process says once ink has loaded and it can draw. */
export const READY = "ready";

/** What the view's process answers once the last frame is on the terminal. */
export const CLOSED = "closed";
