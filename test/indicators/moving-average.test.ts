import { describe, expect, it } from "vitest";
import { ema, sma, wma } from "../../src/indicators/moving-average.js";
import { plain, randomWalk } from "./make-series.js";

const f = (xs: number[]) => Float64Array.from(xs);

describe("sma", () => {
  it("averages the last `period` values and is NaN before", () => {
    // (1+2+3)/3 = 2, (2+3+4)/3 = 3, (3+4+5)/3 = 4
    expect(plain(sma(f([1, 2, 3, 4, 5]), 3))).toEqual([NaN, NaN, 2, 3, 4]);
  });

  it("is all NaN when the series is shorter than the period", () => {
    expect(plain(sma(f([1, 2]), 3))).toEqual([NaN, NaN]);
  });

  it("matches a naive window mean on a long series, across its re-summed blocks", () => {
    const close = randomWalk(10_007).close;
    const out = sma(close, 50);
    for (let i = 49; i < close.length; i += 1) {
      let sum = 0;
      for (let j = i - 49; j <= i; j++) sum += close[j]!;
      expect(out[i]).toBeCloseTo(sum / 50, 9);
    }
  });
});

describe("ema", () => {
  it("seeds with the SMA of the first `period` values, then recurses with alpha = 2/(n+1)", () => {
    // period 3 → alpha = 0.5; seed at index 2 = (2+4+6)/3 = 4
    // i3: 4 + 0.5*(8-4) = 6; i4: 6 + 0.5*(3-6) = 4.5; i5: 4.5 + 0.5*(1-4.5) = 2.75
    expect(plain(ema(f([2, 4, 6, 8, 3, 1]), 3))).toEqual([NaN, NaN, 4, 6, 4.5, 2.75]);
  });

  it("can start later, for smoothing a line that begins with NaN", () => {
    // start 2, period 2 → alpha 2/3; seed at 3 = (3+6)/2 = 4.5; i4: 4.5 + 2/3*(0-4.5) = 1.5
    const out = plain(ema(f([NaN, NaN, 3, 6, 0]), 2, 2));
    expect(out.slice(0, 3)).toEqual([NaN, NaN, NaN]);
    expect(out[3]).toBe(4.5);
    expect(out[4]).toBeCloseTo(1.5, 12);
  });
});

describe("wma", () => {
  it("weights 1..period with the newest heaviest", () => {
    // i2: (1*1+2*2+3*3)/6 = 14/6; i3: (1*2+2*3+3*4)/6 = 20/6; i4: (1*3+2*4+3*10)/6 = 41/6
    const out = plain(wma(f([1, 2, 3, 4, 10]), 3));
    expect(out.slice(0, 2)).toEqual([NaN, NaN]);
    expect(out[2]).toBeCloseTo(14 / 6, 12);
    expect(out[3]).toBeCloseTo(20 / 6, 12);
    expect(out[4]).toBeCloseTo(41 / 6, 12);
  });
});
