import type { IndicatorResult } from "./compute-indicator.js";
import { IndicatorError } from "./indicator-error.js";

/** JSON cannot carry NaN or ±Infinity; a model is better told "no value" than handed a string. */
function toJsonNumber(v: number | undefined): number | null {
  return v === undefined || !Number.isFinite(v) ? null : v;
}

/**
 * The last `n` values of every output ending at `index` (inclusive), oldest first, NaN as null, for
 * prompts and tools. Fewer than `n` values come back when `index` is near the start of the series.
 */
export function valuesUpTo(
  result: IndicatorResult,
  index: number,
  n: number,
): Record<string, (number | null)[]> {
  if (!Number.isInteger(n) || n < 1) {
    throw new IndicatorError(`The number of values must be a positive integer, got ${n}.`);
  }
  const out: Record<string, (number | null)[]> = {};
  for (const [key, values] of Object.entries(result.outputs)) {
    checkIndex(index, values.length);
    const from = Math.max(0, index - n + 1);
    const slice: (number | null)[] = [];
    for (let i = from; i <= index; i++) slice.push(toJsonNumber(values[i]));
    out[key] = slice;
  }
  return out;
}

/** One output's value at `index`, null while it is not defined. */
export function valueAt(result: IndicatorResult, index: number, output = "value"): number | null {
  const values = result.outputs[output];
  if (!values) {
    throw new IndicatorError(
      `Indicator ${result.name} has no output ${JSON.stringify(output)}; it has: ${Object.keys(result.outputs).join(", ")}.`,
    );
  }
  checkIndex(index, values.length);
  return toJsonNumber(values[index]);
}

function checkIndex(index: number, length: number): void {
  if (!Number.isInteger(index) || index < 0 || index >= length) {
    throw new IndicatorError(
      `Bar index ${index} is outside the series (0..${length - 1}); read at the current bar index.`,
    );
  }
}
