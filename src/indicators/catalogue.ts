import { z } from "zod";
import type { SymbolSeries } from "../engine/types.js";
import { atr } from "./atr.js";
import { bollingerBands } from "./bollinger-bands.js";
import { macd } from "./macd.js";
import { ema, sma, wma } from "./moving-average.js";
import { onBalanceVolume } from "./on-balance-volume.js";
import { adx, cci, stochastic, williamsR } from "./package-indicators.js";
import { rateOfChange } from "./rate-of-change.js";
import { rollingExtreme } from "./rolling-extreme.js";
import { rsi } from "./rsi.js";

/** Which columns of the series an indicator reads. */
export type IndicatorSource = "close" | "high" | "low" | "hlc" | "close+volume";

export interface IndicatorComputation {
  /** Each output has the series length, NaN before it is defined. */
  outputs: Record<string, Float64Array>;
  /** Index of the first bar at which every output is defined (may exceed the series length). */
  warmup: number;
}

/** One catalogue entry. The catalogue is data so that the LLM tool schema (via the zod `params`
 * schema, e.g. `z.toJSONSchema`) and param validation are derived from it, never duplicated. */
export interface IndicatorSpec {
  readonly description: string;
  /** Strict object schema with a default for every param. */
  readonly params: z.ZodType<Record<string, number>>;
  readonly outputs: readonly string[];
  readonly source: IndicatorSource;
  /** `params` must already be normalised by `params`; it is re-parsed here only to stay typed. */
  compute(series: SymbolSeries, params: Record<string, number>): IndicatorComputation;
}

function defineIndicator<S extends z.ZodType<Record<string, number>>>(spec: {
  description: string;
  params: S;
  outputs: readonly string[];
  source: IndicatorSource;
  compute: (series: SymbolSeries, params: z.output<S>) => IndicatorComputation;
}): IndicatorSpec {
  return {
    description: spec.description,
    params: spec.params,
    outputs: spec.outputs,
    source: spec.source,
    compute: (series, params) => spec.compute(series, spec.params.parse(params)),
  };
}

const period = (fallback: number) =>
  z.number().int().positive().default(fallback).describe("Number of bars in the window");

const periodOnly = (fallback: number) => z.strictObject({ period: period(fallback) });

export const INDICATOR_NAMES = [
  "sma",
  "ema",
  "wma",
  "rsi",
  "macd",
  "bbands",
  "atr",
  "roc",
  "highest",
  "lowest",
  "stoch",
  "adx",
  "cci",
  "willr",
  "obv",
] as const;

export type IndicatorName = (typeof INDICATOR_NAMES)[number];

export const INDICATORS: Readonly<Record<IndicatorName, IndicatorSpec>> = {
  sma: defineIndicator({
    description: "Simple moving average of the close over `period` bars.",
    params: periodOnly(20),
    outputs: ["value"],
    source: "close",
    compute: (s, p) => ({ outputs: { value: sma(s.close, p.period) }, warmup: p.period - 1 }),
  }),
  ema: defineIndicator({
    description:
      "Exponential moving average of the close, alpha = 2/(period+1), seeded with the SMA of the first `period` closes.",
    params: periodOnly(20),
    outputs: ["value"],
    source: "close",
    compute: (s, p) => ({ outputs: { value: ema(s.close, p.period) }, warmup: p.period - 1 }),
  }),
  wma: defineIndicator({
    description:
      "Linearly weighted moving average of the close (weights 1..period, newest heaviest).",
    params: periodOnly(20),
    outputs: ["value"],
    source: "close",
    compute: (s, p) => ({ outputs: { value: wma(s.close, p.period) }, warmup: p.period - 1 }),
  }),
  rsi: defineIndicator({
    description: "Wilder's relative strength index of the close, 0..100, not rounded.",
    params: periodOnly(14),
    outputs: ["value"],
    source: "close",
    compute: (s, p) => ({ outputs: { value: rsi(s.close, p.period) }, warmup: p.period }),
  }),
  macd: defineIndicator({
    description:
      "MACD of the close: macd = EMA(fast) - EMA(slow), signal = EMA(signal) of macd, histogram = macd - signal.",
    params: z
      .strictObject({
        fast: z.number().int().positive().default(12).describe("Fast EMA period"),
        slow: z.number().int().positive().default(26).describe("Slow EMA period"),
        signal: z.number().int().positive().default(9).describe("Signal EMA period"),
      })
      .refine((p) => p.fast < p.slow, {
        message: "fast must be smaller than slow",
        path: ["fast"],
      }),
    outputs: ["macd", "signal", "histogram"],
    source: "close",
    compute: (s, p) => {
      const { macd: line, signal, histogram } = macd(s.close, p.fast, p.slow, p.signal);
      return { outputs: { macd: line, signal, histogram }, warmup: p.slow + p.signal - 2 };
    },
  }),
  bbands: defineIndicator({
    description:
      "Bollinger bands of the close: middle = SMA(period), upper/lower = middle ± stddev × population standard deviation.",
    params: z.strictObject({
      period: period(20),
      stddev: z
        .number()
        .positive()
        .finite()
        .default(2)
        .describe("Band width in standard deviations"),
    }),
    outputs: ["upper", "middle", "lower"],
    source: "close",
    compute: (s, p) => {
      const { upper, middle, lower } = bollingerBands(s.close, p.period, p.stddev);
      return { outputs: { upper, middle, lower }, warmup: p.period - 1 };
    },
  }),
  atr: defineIndicator({
    description: "Average true range with Wilder smoothing, in price units.",
    params: periodOnly(14),
    outputs: ["value"],
    source: "hlc",
    compute: (s, p) => ({
      outputs: { value: atr(s.high, s.low, s.close, p.period) },
      warmup: p.period,
    }),
  }),
  roc: defineIndicator({
    description: "Rate of change of the close over `period` bars, in percent.",
    params: periodOnly(10),
    outputs: ["value"],
    source: "close",
    compute: (s, p) => ({ outputs: { value: rateOfChange(s.close, p.period) }, warmup: p.period }),
  }),
  highest: defineIndicator({
    description: "Highest high of the last `period` bars, the current bar included.",
    params: periodOnly(20),
    outputs: ["value"],
    source: "high",
    compute: (s, p) => ({
      outputs: { value: rollingExtreme(s.high, p.period, "max") },
      warmup: p.period - 1,
    }),
  }),
  lowest: defineIndicator({
    description: "Lowest low of the last `period` bars, the current bar included.",
    params: periodOnly(20),
    outputs: ["value"],
    source: "low",
    compute: (s, p) => ({
      outputs: { value: rollingExtreme(s.low, p.period, "min") },
      warmup: p.period - 1,
    }),
  }),
  stoch: defineIndicator({
    description:
      "Fast stochastic oscillator, 0..100: k = %K over `period` bars, d = SMA(signal) of k.",
    params: z.strictObject({
      period: period(14),
      signal: z.number().int().positive().default(3).describe("Smoothing period of %D"),
    }),
    outputs: ["k", "d"],
    source: "hlc",
    compute: (s, p) => ({
      outputs: stochastic(s, p.period, p.signal),
      warmup: p.period + p.signal - 2,
    }),
  }),
  adx: defineIndicator({
    description: "Wilder's average directional index with +DI (pdi) and -DI (mdi), 0..100.",
    params: periodOnly(14),
    outputs: ["adx", "pdi", "mdi"],
    source: "hlc",
    compute: (s, p) => ({ outputs: adx(s, p.period), warmup: 2 * p.period - 1 }),
  }),
  cci: defineIndicator({
    description: "Commodity channel index of the typical price (high+low+close)/3.",
    params: periodOnly(20),
    outputs: ["value"],
    source: "hlc",
    compute: (s, p) => ({ outputs: { value: cci(s, p.period) }, warmup: p.period - 1 }),
  }),
  willr: defineIndicator({
    description: "Williams %R, -100..0, over `period` bars.",
    params: periodOnly(14),
    outputs: ["value"],
    source: "hlc",
    compute: (s, p) => ({ outputs: { value: williamsR(s, p.period) }, warmup: p.period - 1 }),
  }),
  obv: defineIndicator({
    description: "On-balance volume, starting at 0 on the first bar.",
    params: z.strictObject({}),
    outputs: ["value"],
    source: "close+volume",
    compute: (s) => ({ outputs: { value: onBalanceVolume(s.close, s.volume) }, warmup: 0 }),
  }),
};
