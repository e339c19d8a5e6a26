import type { SymbolSeries } from "../engine/types.js";
import { INDICATORS, type IndicatorName } from "./catalogue.js";
import { resolveIndicator } from "./resolve-indicator.js";

/**
 * An indicator computed once over a whole series. It is causal: the value at bar i depends only on
 * bars 0..i, so reading index i at bar i never sees the future. Callers read it, never mutate it.
 */
export interface IndicatorResult {
  name: IndicatorName;
  /** Normalised: every param with defaults filled in. */
  params: Record<string, number>;
  /** Each output has the series length, NaN before it is defined. Single-output indicators use
   * the key "value"; macd: macd, signal, histogram; bbands: upper, middle, lower. */
  outputs: Record<string, Float64Array>;
  /** Index of the first bar at which every output is defined (may exceed the series length). */
  warmup: number;
}

/** Validates `name` and `params` (throws IndicatorError) and computes over the whole series. */
export function computeIndicator(
  series: SymbolSeries,
  name: string,
  params?: Record<string, number>,
): IndicatorResult {
  const resolved = resolveIndicator(name, params);
  const { outputs, warmup } = INDICATORS[resolved.name].compute(series, resolved.params);
  return { name: resolved.name, params: resolved.params, outputs, warmup };
}
