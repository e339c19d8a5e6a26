import { createRequire } from "node:module";
import type * as TechnicalIndicators from "technicalindicators";
import { nanArray } from "./nan-array.js";

// The package is one large bundle (a sixth of a code run's start-up) that only these four
// indicators use: it loads on the first call of one of them, not with the catalogue. The same
// module either way: its ESM import is this CommonJS file.
let technicalIndicators: typeof TechnicalIndicators | null = null;
function packageIndicators(): typeof TechnicalIndicators {
  technicalIndicators ??= createRequire(import.meta.url)(
    "technicalindicators",
  ) as typeof TechnicalIndicators;
  return technicalIndicators;
}

// These indicators come from `technicalindicators`, which drops the warm-up bars (its output is
// shorter than its input) and may round through a global `precision` setting. Every adapter passes
// an identity `format` so nothing is rounded, and aligns the output to the *end* of the input: the
// package emits one value per bar once warmed up, so its last value belongs to the last bar.

type Hlc = { high: Float64Array; low: Float64Array; close: Float64Array };

const identity = (v: number): number => v;

function hlcArrays({ high, low, close }: Hlc): { high: number[]; low: number[]; close: number[] } {
  return { high: Array.from(high), low: Array.from(low), close: Array.from(close) };
}

function alignToEnd(length: number, values: readonly (number | undefined)[]): Float64Array {
  const out = nanArray(length);
  const offset = length - values.length;
  for (let j = 0; j < values.length; j++) {
    const v = values[j];
    if (v !== undefined) out[offset + j] = v;
  }
  return out;
}

/** Fast stochastic: %K over `period` bars (first at index period - 1; 0 when the range is flat),
 * %D = SMA(signalPeriod) of %K (first at period + signalPeriod - 2). */
export function stochastic(
  series: Hlc,
  period: number,
  signalPeriod: number,
): { k: Float64Array; d: Float64Array } {
  const rows = packageIndicators().Stochastic.calculate({
    ...hlcArrays(series),
    period,
    signalPeriod,
    format: identity,
  });
  const n = series.close.length;
  const column = (values: (number | undefined)[]) => alignToEnd(n, values);
  return { k: column(rows.map((r) => r.k)), d: column(rows.map((r) => r.d)) };
}

/** Wilder's ADX with +DI (pdi) and -DI (mdi). The package reports all three only once ADX exists,
 * at index 2 * period - 1 (DI smoothed from bar 1, then DX smoothed over `period`). */
export function adx(
  series: Hlc,
  period: number,
): { adx: Float64Array; pdi: Float64Array; mdi: Float64Array } {
  const rows = packageIndicators().ADX.calculate({
    ...hlcArrays(series),
    period,
    format: identity,
  });
  const n = series.close.length;
  const column = (values: number[]) => alignToEnd(n, values);
  return {
    adx: column(rows.map((r) => r.adx)),
    pdi: column(rows.map((r) => r.pdi)),
    mdi: column(rows.map((r) => r.mdi)),
  };
}

/** Commodity channel index: (TP - SMA(TP)) / (0.015 * mean absolute deviation), TP = (H + L + C) / 3,
 * first at index period - 1; NaN where the window's typical prices are all equal. */
export function cci(series: Hlc, period: number): Float64Array {
  const values = packageIndicators().CCI.calculate({
    ...hlcArrays(series),
    period,
    format: identity,
  });
  return alignToEnd(series.close.length, values);
}

/** Williams %R: -100 * (highest high - close) / (highest high - lowest low), first at period - 1;
 * NaN where the window's range is zero. */
export function williamsR(series: Hlc, period: number): Float64Array {
  const values = packageIndicators().WilliamsR.calculate({
    ...hlcArrays(series),
    period,
    format: identity,
  });
  return alignToEnd(series.close.length, values);
}
