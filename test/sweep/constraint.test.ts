import { describe, expect, it } from "vitest";
import { ConstraintError, parseConstraint } from "../../src/sweep/constraint.js";

describe("the constraint language", () => {
  const axes = ["fast", "slow", "longShort", "commission", "max-position-weight", "mode"];

  it("compares, computes and combines over the axis names", () => {
    const c = parseConstraint("fast < slow", axes);
    expect(c({ fast: 5, slow: 10 })).toBe(true);
    expect(c({ fast: 10, slow: 10 })).toBe(false);
    const d = parseConstraint("slow >= 2 * fast + 5 and not (fast == 15 or slow % 20 != 0)", axes);
    expect(d({ fast: 5, slow: 20 })).toBe(true);
    expect(d({ fast: 5, slow: 30 })).toBe(false);
    expect(d({ fast: 15, slow: 40 })).toBe(false);
    expect(d({ fast: 10, slow: 24 })).toBe(false);
    expect(parseConstraint("-fast + 3 > -slow / 2", axes)({ fast: 4, slow: 4 })).toBe(true);
    expect(
      parseConstraint("longShort || commission = 0", axes)({ longShort: false, commission: 0 }),
    ).toBe(true);
    expect(
      parseConstraint("!longShort && mode == 'b'", axes)({ longShort: false, mode: "b" }),
    ).toBe(true);
    expect(parseConstraint("maxPositionWeight <= 0.5", axes)({ "max-position-weight": 0.25 })).toBe(
      true,
    );
  });

  it("names an unknown axis, with the one meant", () => {
    expect(() => parseConstraint("fats < slow", axes)).toThrow(
      /"fats" at column 1 is not an axis \(did you mean fast\?\)\. Axes: fast, slow/,
    );
  });

  it("points at the column of a syntax error", () => {
    expect(() => parseConstraint("fast < ", axes)).toThrow(/column 8, found the end/);
    expect(() => parseConstraint("fast < slow < 3", axes)).toThrow(/column 13/);
    expect(() => parseConstraint("fast $ slow", axes)).toThrow(
      /at column 6, "\$" is not part of the language/,
    );
    expect(() => parseConstraint("(fast < slow", axes)).toThrow(/expected "\)" at column 13/);
    expect(() => parseConstraint("fast < slow)", axes)).toThrow(ConstraintError);
  });

  it("refuses a value of the wrong type, naming the column", () => {
    const c = parseConstraint("longShort + 1 > 0", axes);
    expect(() => c({ longShort: true })).toThrow(/\+ needs numbers, got true and 1 \(column 11\)/);
    const d = parseConstraint("fast + slow", axes);
    expect(() => d({ fast: 1, slow: 2 })).toThrow(/gives 3, not true or false/);
    const e = parseConstraint("fast and slow", axes);
    expect(() => e({ fast: 1, slow: 2 })).toThrow(
      /and needs true or false on its left, got 1 \(column 6\)/,
    );
    const f = parseConstraint("mode == 1", axes);
    expect(() => f({ mode: "a" })).toThrow(/of different types/);
  });

  it("never evaluates JavaScript", () => {
    expect(() => parseConstraint("process.exit(1)", axes)).toThrow(
      /at column 8, "\." is not part of the language/,
    );
    expect(() => parseConstraint("fast; 1", axes)).toThrow(ConstraintError);
    expect(() => parseConstraint("`x`", axes)).toThrow(ConstraintError);
  });
});
