import { describe, expect, it } from "vitest";
import { parseDecimal } from "../../src/util/parse-decimal.js";

describe("parseDecimal", () => {
  it("gives the same double as Number() on plain decimals", () => {
    for (const text of ["0", "100", "104.06", "-2.5", "+7", ".5", "5.", "0.1", "1.07219"]) {
      expect(Object.is(parseDecimal(text), Number(text))).toBe(true);
    }
    // 0.1 + 0.2 style rounding traps: 2.117284 must be the nearest double, as Number gives.
    expect(parseDecimal("2.117284")).toBe(2.117284);
    expect(parseDecimal("4006500.0")).toBe(4_006_500);
  });

  it("keeps the sign of negative zero, like Number()", () => {
    expect(Object.is(parseDecimal("-0"), -0)).toBe(true);
  });

  it("defers exponents and long mantissas to Number()", () => {
    expect(parseDecimal("1e3")).toBe(1000);
    expect(parseDecimal("2.5E-2")).toBe(0.025);
    // 2^53 + 1 is not a double; the nearest (ties to even) is 2^53 = 9007199254740992.
    expect(parseDecimal("9007199254740993")).toBe(9007199254740992);
  });

  it("returns NaN for an empty string and for junk, instead of Number()'s 0", () => {
    expect(parseDecimal("")).toBeNaN();
    expect(parseDecimal("-")).toBeNaN();
    expect(parseDecimal(".")).toBeNaN();
    expect(parseDecimal("abc")).toBeNaN();
    expect(parseDecimal("1,000")).toBeNaN();
    expect(parseDecimal("1.2.3")).toBeNaN();
  });

  it("reads decimal notation only: hex, binary, octal, Infinity and separators are NaN", () => {
    for (const text of [
      "0x64",
      "0X64",
      "-0x10",
      "0b101",
      "0o17",
      "Infinity",
      "-Infinity",
      "+Infinity",
      "1_000",
      "1 000",
      "1e",
      "e5",
      "1e5.5",
      "0x",
      "12abc",
    ]) {
      expect(parseDecimal(text), text).toBeNaN();
    }
    // Decimal, so accepted: a sign, a bare leading or trailing point, an exponent, and spaces
    // around the number (a CSV written with ", " separators).
    expect(parseDecimal("+5")).toBe(5);
    expect(parseDecimal(".5")).toBe(0.5);
    expect(parseDecimal("5.")).toBe(5);
    expect(parseDecimal("1E3")).toBe(1000);
    expect(parseDecimal("  12 ")).toBe(12);
    expect(parseDecimal("\t-1.5e-1\t")).toBe(-0.15);
    // Decimal notation that overflows is Infinity: the callers reject it as not finite.
    expect(parseDecimal("1e999")).toBe(Number.POSITIVE_INFINITY);
  });
});
