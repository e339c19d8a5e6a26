import { describe, expect, it } from "vitest";
import { onBalanceVolume } from "../../src/indicators/on-balance-volume.js";

describe("onBalanceVolume", () => {
  it("adds volume on up closes, subtracts on down closes, holds on flat ones", () => {
    // 0; up +200 = 200; flat = 200; down -400 = -200; up +500 = 300
    const out = onBalanceVolume(
      Float64Array.from([10, 11, 11, 9, 12]),
      Float64Array.from([100, 200, 300, 400, 500]),
    );
    expect(Array.from(out)).toEqual([0, 200, 200, -200, 300]);
  });
});
