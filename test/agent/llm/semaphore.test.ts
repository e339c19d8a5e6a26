import { describe, expect, it } from "vitest";
import { Semaphore } from "../../../src/agent/llm/semaphore.js";

describe("Semaphore", () => {
  it("runs at most `limit` tasks at once, in arrival order, and frees slots on failure", async () => {
    const sem = new Semaphore(2);
    let active = 0;
    let peak = 0;
    const started: number[] = [];
    const task = (i: number) =>
      sem.run(async () => {
        started.push(i);
        active += 1;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 5));
        active -= 1;
        if (i === 0) throw new Error("boom");
        return i;
      });
    const results = await Promise.allSettled([0, 1, 2, 3, 4].map(task));
    expect(peak).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(results.map((r) => r.status)).toEqual([
      "rejected",
      "fulfilled",
      "fulfilled",
      "fulfilled",
      "fulfilled",
    ]);
  });

  it("rejects a limit below 1", () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
  });
});
