import { DECIMAL_NOTATION, parseDecimal } from "../data/parse-decimal.js";
import { UsageError } from "../runner/run-errors.js";

/** Parses a numeric option, refusing anything that is not a finite decimal number in range. */
export function numberOption(
  flag: string,
  raw: string | undefined,
  opts: { min?: number; max?: number; integer?: boolean } = {},
): number | undefined {
  if (raw === undefined) return undefined;
  const n = parseDecimal(raw);
  const { min, max, integer } = opts;
  const bad =
    raw.trim() === "" ||
    !Number.isFinite(n) ||
    (min !== undefined && n < min) ||
    (max !== undefined && n > max) ||
    (integer === true && !Number.isInteger(n));
  if (bad) {
    const range = [min !== undefined ? `>= ${min}` : "", max !== undefined ? `<= ${max}` : ""]
      .filter(Boolean)
      .join(" and ");
    throw new UsageError(
      `${flag} ${JSON.stringify(raw)} is not valid: expected ${integer ? "a whole decimal number" : "a decimal number"}${range ? ` ${range}` : ""}, in ${DECIMAL_NOTATION}.`,
    );
  }
  return n;
}
