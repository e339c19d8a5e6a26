/**
 * The share of the time the live view may spend drawing: after a frame that took d ms, the next
 * waits d × (1 / DRAW_SHARE − 1) ms, never more than MAX_GAP_MS. A warm frame takes a few ms, so
 * an LLM run (whose thread mostly waits for the model) still gets its 10 frames a second; while a
 * code run keeps every core busy, a frame takes tens of ms and the view draws a few times a
 * second instead of slowing the run down.
 */
export const DRAW_SHARE = 0.05;
export const MAX_GAP_MS = 1000;

/** When the frame after one drawn from `startedAt` to `endedAt` (ms) may be drawn. */
export function nextFrameAt(startedAt: number, endedAt: number): number {
  return endedAt + Math.min(MAX_GAP_MS, (endedAt - startedAt) * (1 / DRAW_SHARE - 1));
}
