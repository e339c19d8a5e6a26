import { UsageError } from "../errors/usage-error.js";
import { DECIMAL_NOTATION, parseDecimal } from "../util/parse-decimal.js";

/** Most values one axis may take: a range that would make more is surely a typo. */
export const MAX_AXIS_VALUES = 100_000;

/** An axis's values as written: texts (`a,b,c`, typed later by the axis), or numbers (a range). */
export type GridValues = { kind: "list"; texts: string[] } | { kind: "range"; numbers: number[] };

/** Decimal places of a number as written (`0.05` → 2, `1e-3` → 3), to round a range's steps. */
function decimals(text: string): number {
  const m = /^[+-]?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!m) return 0;
  return Math.max(0, (m[2]?.length ?? 0) - Number(m[3] ?? 0));
}

function rangeNumber(axis: string, role: string, text: string): number {
  const n = parseDecimal(text);
  if (!Number.isFinite(n))
    throw new UsageError(
      `--grid ${axis}: the range's ${role} ${JSON.stringify(text)} is not a finite number (${DECIMAL_NOTATION}).`,
    );
  return n;
}

/**
 * `start:stop:step` as numbers: start, start + step, … up to stop, included when a step lands on
 * it. Each value is rounded to the places start and step are written with, so `0:0.3:0.1` gives
 * 0, 0.1, 0.2, 0.3 (not 0.30000000000000004, and not one short).
 */
export function rangeValues(axis: string, text: string): number[] {
  const parts = text.split(":");
  if (parts.length !== 3)
    throw new UsageError(
      `--grid ${axis}=${text}: a range is start:stop:step, e.g. 5:50:5 (three numbers).`,
    );
  const [a, b, c] = parts as [string, string, string];
  const start = rangeNumber(axis, "start", a);
  const stop = rangeNumber(axis, "stop", b);
  const step = rangeNumber(axis, "step", c);
  if (step === 0 || (stop - start) * step < 0)
    throw new UsageError(
      `--grid ${axis}=${text}: the step ${c} never goes from ${a} to ${b}; use a step of the stop's sign, not 0.`,
    );
  const places = Math.min(15, Math.max(decimals(a), decimals(c)));
  const scale = 10 ** places;
  // The count from the exact quotient, with room for the rounding of float division.
  const count = Math.floor((stop - start) / step + 1e-9) + 1;
  if (count > MAX_AXIS_VALUES)
    throw new UsageError(
      `--grid ${axis}=${text} makes ${count} values, more than ${MAX_AXIS_VALUES}: use a larger step.`,
    );
  const out: number[] = [];
  for (let k = 0; k < count; k++) out.push(Math.round((start + k * step) * scale) / scale);
  return out;
}

/** The values of `--grid name=values`: a range when it has colons, else a comma list. */
export function parseGridValues(axis: string, text: string): GridValues {
  const trimmed = text.trim();
  if (trimmed === "")
    throw new UsageError(
      `--grid ${axis}= has no values: write a,b,c or start:stop:step after the =.`,
    );
  if (trimmed.includes(":") && !trimmed.includes(","))
    return { kind: "range", numbers: rangeValues(axis, trimmed) };
  const texts = trimmed.split(",").map((t) => t.trim());
  const empty = texts.indexOf("");
  if (empty >= 0)
    throw new UsageError(
      `--grid ${axis}=${text}: value ${empty + 1} is empty; write the values as a,b,c.`,
    );
  return { kind: "list", texts };
}

/** `--grid name=values` split at its first `=`. */
export function splitGridArg(arg: string): { name: string; values: string } {
  const eq = arg.indexOf("=");
  if (eq <= 0)
    throw new UsageError(
      `--grid ${JSON.stringify(arg)} must look like name=values, e.g. --grid fast=5:50:5 or --grid commission=0,0.001.`,
    );
  return { name: arg.slice(0, eq).trim(), values: arg.slice(eq + 1) };
}
