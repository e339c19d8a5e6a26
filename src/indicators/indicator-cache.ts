import type { SymbolSeries } from "../engine/types.js";
import { computeIndicator, type IndicatorResult } from "./compute-indicator.js";
import { IndicatorError } from "./indicator-error.js";
import { paramsKey, type ResolvedIndicator, resolveIndicator } from "./resolve-indicator.js";

/**
 * Computes each (symbol, indicator, params) once over the full series, then serves the same result
 * on every bar; readers slice it at the current index. Use one cache per run.
 */
export class IndicatorCache {
  private readonly entries = new Map<string, { series: SymbolSeries; result: IndicatorResult }>();
  private computed = 0;
  /** The cache key of params as a strategy passed them (finite numbers only): a sweep's runs ask
   * for the same few again and again, and checking them (zod) costs more than the lookup. */
  private readonly keys = new Map<string, string>();

  /** How many times an indicator was actually computed (not served from the cache). */
  get computeCount(): number {
    return this.computed;
  }

  get(series: SymbolSeries, name: string, params?: Record<string, number>): IndicatorResult {
    const asked = askedKey(series.symbol, name, params);
    let key = asked === null ? undefined : this.keys.get(asked);
    let resolved: ResolvedIndicator | null = null;
    if (key === undefined) {
      resolved = resolveIndicator(name, params);
      key = `${series.symbol}\u0000${resolved.name}\u0000${paramsKey(resolved.params)}`;
      if (asked !== null) this.keys.set(asked, key);
    }
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
    resolved ??= resolveIndicator(name, params);
    const result = computeIndicator(series, resolved.name, resolved.params);
    this.computed++;
    this.entries.set(key, { series, result });
    return result;
  }
}

/** The params as asked, in their own order; null when any is not a finite number (those are
 * always checked: an error must name them). */
function askedKey(symbol: string, name: string, params?: Record<string, number>): string | null {
  let key = `${symbol}\u0000${name}`;
  if (params === undefined) return key;
  for (const k in params) {
    if (!Object.hasOwn(params, k)) continue;
    const v = params[k];
    if (typeof v !== "number" || !Number.isFinite(v)) return null;
    key += `\u0000${k}=${v}`;
  }
  return key;
}
