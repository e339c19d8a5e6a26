import type { SymbolSeries } from "../engine/types.js";
import { computeIndicator, type IndicatorResult } from "./compute-indicator.js";
import { IndicatorError } from "./indicator-error.js";
import { paramsKey, resolveIndicator } from "./resolve-indicator.js";

/**
 * Computes each (symbol, indicator, params) once over the full series, then serves the same result
 * on every bar; readers slice it at the current index. Use one cache per run.
 */
export class IndicatorCache {
  private readonly entries = new Map<string, { series: SymbolSeries; result: IndicatorResult }>();
  private computed = 0;

  /** How many times an indicator was actually computed (not served from the cache). */
  get computeCount(): number {
    return this.computed;
  }

  get(series: SymbolSeries, name: string, params?: Record<string, number>): IndicatorResult {
    const resolved = resolveIndicator(name, params);
    const key = `${series.symbol}\u0000${resolved.name}\u0000${paramsKey(resolved.params)}`;
    const hit = this.entries.get(key);
    if (hit) {
      // A different series under the same symbol would be served stale values; most likely a
      // truncated copy was passed, which is also how recomputing every bar would creep in.
      if (hit.series !== series) {
        throw new IndicatorError(
          `IndicatorCache was given a different series for symbol ${series.symbol}. Pass the full ` +
            "series of the run every time and read the result at the current index; use a new " +
            "IndicatorCache for a new run.",
        );
      }
      return hit.result;
    }
    const result = computeIndicator(series, resolved.name, resolved.params);
    this.computed++;
    this.entries.set(key, { series, result });
    return result;
  }
}
