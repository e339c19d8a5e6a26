// Powers of ten that are exact doubles, so mantissa / 10^k below is correctly rounded.
export const POW10 = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/** Decimal notation: an optional sign, digits with an optional point (`.5` and `5.` included),
 * an optional exponent. No hex/binary/octal prefixes, `Infinity`, `_` or thousands separators. */
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** What the number-reading messages say is accepted. */
export const DECIMAL_NOTATION =
  "decimal notation only (such as 101.25, -3, .5 or 1e6; no hex, binary, Infinity or thousands separators)";

/**
 * The value of a number in decimal notation, surrounding spaces ignored; NaN for anything else
 * (Number() alone would read `0x64` as 100 and `Infinity` as a number). Decimal notation that
 * overflows gives ±Infinity, which callers reject as not finite.
 *
 * Number(text) for plain decimals like `-101.25`, about three times faster on the per-cell hot
 * path. With at most 15 digits the mantissa and 10^k are exact doubles, so one IEEE division gives
 * the correctly rounded value, bit-identical to Number(); anything else (exponents, spaces, long
 * mantissas, junk) is handed to Number() itself. An empty string is NaN, not 0.
 */
export function parseDecimal(text: string): number {
  return parseDecimalIn(text, 0, text.length);
}

/** `parseDecimal(text.slice(start, end))` without making the slice: the loader reads cells in
 * place from the text of a whole piece of the file. */
export function parseDecimalIn(text: string, start: number, end: number): number {
  let i = start;
  const sign = text.charCodeAt(start);
  if (start < end && (sign === 45 || sign === 43)) i = start + 1; // '-' or '+'
  let mantissa = 0;
  let digits = 0;
  let fractionDigits = 0;
  let seenDot = false;
  for (; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48);
      digits++;
      if (seenDot) fractionDigits++;
    } else if (c === 46 && !seenDot) {
      seenDot = true;
    } else {
      return slowPath(text.slice(start, end));
    }
  }
  if (digits === 0) return Number.NaN;
  if (digits > 15) return slowPath(text.slice(start, end));
  const value = mantissa / (POW10[fractionDigits] ?? 1);
  return sign === 45 ? -value : value;
}

function slowPath(text: string): number {
  const trimmed = text.trim();
  return DECIMAL.test(trimmed) ? Number(trimmed) : Number.NaN;
}
