import { describe, expect, it } from "vitest";
import { DRAW_SHARE, MAX_GAP_MS, nextFrameAt } from "../../src/ui/frame-pacing.js";

describe("the live view's frame pacing (at most DRAW_SHARE of the time spent drawing)", () => {
  it("a 2 ms frame: the next may come 38 ms after it ends (the 100 ms tick keeps 10 a second)", () => {
    expect(nextFrameAt(1000, 1002)).toBeCloseTo(1002 + 38, 9);
  });

  it("a 30 ms frame on a busy machine: the next waits 570 ms, so drawing is 5 % of the time", () => {
    const next = nextFrameAt(0, 30);
    expect(next).toBeCloseTo(600, 9);
    expect(30 / next).toBeCloseTo(DRAW_SHARE, 9);
  });

  it("a cold first frame of 150 ms: the wait is capped at a second", () => {
    expect(nextFrameAt(500, 650)).toBe(650 + MAX_GAP_MS);
  });
});
