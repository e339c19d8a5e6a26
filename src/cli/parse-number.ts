import { DECIMAL_NOTATION, parseDecimal } from "../data/parse-decimal.js";
import { UsageError } from "../errors/run-errors.js";

/** The values a numeric option takes: bounds (`above`: strictly greater) and whole numbers. */
export interface NumberRange {
  min?: number;
  above?: number;
  max?: number;
  integer?: boolean;
}

/**
 * Parses a numeric option, refusing anything that is not a finite decimal number in range. The
 * message says which: a text that is no decimal number gets the notation, a number out of range
 * (or not whole) the range it must be in.
 */
export function numberOption(
  flag: string,
  raw: string | undefined,
  opts: NumberRange = {},
): number | undefined {
  if (raw === undefined) return undefined;
  const n = parseDecimal(raw);
  const { min, above, max, integer } = opts;
  const range = [
    min !== undefined ? `>= ${min}` : "",
    above !== undefined ? `> ${above}` : "",
    max !== undefined ? `<= ${max}` : "",
  ]
    .filter(Boolean)
    .join(" and ");
  // "a decimal number >= 1", "a whole number > 0 and <= 1"...
  const wanted = (noun: string) =>
    `a ${integer === true ? "whole " : ""}${noun}${range ? ` ${range}` : ""}`;
  if (raw.trim() === "" || !Number.isFinite(n)) {
    throw new UsageError(
      `${flag} ${JSON.stringify(raw)} is not valid: expected ${wanted("decimal number")}, in ${DECIMAL_NOTATION}.`,
    );
  }
  const outside =
    (min !== undefined && n < min) ||
    (above !== undefined && !(n > above)) ||
    (max !== undefined && n > max) ||
    (integer === true && !Number.isInteger(n));
  if (outside)
    throw new UsageError(
      `${flag} ${JSON.stringify(raw)} is not valid: it must be ${wanted("number")}.`,
    );
  return n;
}
