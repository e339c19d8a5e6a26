import { ADX } from "technicalindicators";
import { describe, expect, it } from "vitest";
import { adx, cci, stochastic, williamsR } from "../../src/indicators/package-indicators.js";
import { makeSeries, randomWalk } from "./make-series.js";

// Four bars: H [10,12,11,13], L [8,9,7,10], C [9,11,10,12.5]
const bars = makeSeries({
  high: [10, 12, 11, 13],
  low: [8, 9, 7, 10],
  close: [9, 11, 10, 12.5],
});

describe("technicalindicators adapters", () => {
  it("aligns Williams %R to the bar it belongs to, unrounded", () => {
    // i2: HH 12, LL 7 → -100*(12-10)/5 = -40; i3: HH 13, LL 7 → -100*(13-12.5)/6 = -25/3
    const out = williamsR(bars, 3);
    expect(Array.from(out.slice(0, 2))).toEqual([NaN, NaN]);
    expect(out[2]).toBeCloseTo(-40, 12);
    expect(out[3]).toBeCloseTo(-25 / 3, 12);
  });

  it("aligns the stochastic %K and its %D", () => {
    // %K i2: 100*(10-7)/(12-7) = 60; i3: 100*(12.5-7)/(13-7) = 275/3; %D(2) at i3 = (60 + 275/3)/2
    const { k, d } = stochastic(bars, 3, 2);
    expect(k[1]).toBeNaN();
    expect(k[2]).toBeCloseTo(60, 12);
    expect(k[3]).toBeCloseTo(275 / 3, 12);
    expect(d[2]).toBeNaN();
    expect(d[3]).toBeCloseTo((60 + 275 / 3) / 2, 12);
  });

  it("aligns CCI", () => {
    // TP: 9, 32/3, 28/3 → mean 29/3, mean abs deviation (2/3 + 1 + 1/3)/3 = 2/3
    // CCI i2 = (28/3 - 29/3) / (0.015 * 2/3) = -100/3
    const out = cci(bars, 3);
    expect(Array.from(out.slice(0, 2))).toEqual([NaN, NaN]);
    expect(out[2]).toBeCloseTo(-100 / 3, 9);
  });

  it("aligns ADX so that its first value sits at 2 * period - 1 and its last at the last bar", () => {
    const series = randomWalk(100);
    const out = adx(series, 5);
    const raw = ADX.calculate({
      high: Array.from(series.high),
      low: Array.from(series.low),
      close: Array.from(series.close),
      period: 5,
      format: (v) => v,
    });
    // 100 bars, first ADX(5) at index 9 → 91 values
    expect(raw.length).toBe(91);
    expect(out.adx[8]).toBeNaN();
    expect(out.adx[9]).toBe(raw[0]!.adx);
    expect(out.pdi[99]).toBe(raw[90]!.pdi);
    expect(out.mdi[99]).toBe(raw[90]!.mdi);
  });
});
