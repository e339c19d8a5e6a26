import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/errors/usage-error.js";
import { parseGridValues, rangeValues, splitGridArg } from "../../src/sweep/grid-values.js";

describe("grid values", () => {
  it("reads start:stop:step with the stop included when a step lands on it", () => {
    expect(rangeValues("fast", "5:50:5")).toEqual([5, 10, 15, 20, 25, 30, 35, 40, 45, 50]);
    expect(rangeValues("slow", "10:200:10")).toHaveLength(20);
    expect(rangeValues("x", "1:10:4")).toEqual([1, 5, 9]);
    expect(rangeValues("x", "10:1:-3")).toEqual([10, 7, 4, 1]);
    expect(rangeValues("x", "3:3:1")).toEqual([3]);
  });

  it("steps by decimals without drift", () => {
    expect(rangeValues("c", "0:0.3:0.1")).toEqual([0, 0.1, 0.2, 0.3]);
    expect(rangeValues("c", "0.001:0.005:0.001")).toEqual([0.001, 0.002, 0.003, 0.004, 0.005]);
    expect(rangeValues("c", "0:1e-3:2.5e-4")).toEqual([0, 0.00025, 0.0005, 0.00075, 0.001]);
    const many = rangeValues("c", "0:10:0.01");
    expect(many).toHaveLength(1001);
    expect(many[1000]).toBe(10);
    expect(many[7]).toBe(0.07);
  });

  it("refuses non-finite numbers, a zero step or one going the wrong way", () => {
    expect(() => rangeValues("x", "0:Infinity:1")).toThrow(
      /stop "Infinity" is not a finite number/,
    );
    expect(() => rangeValues("x", "0:NaN:1")).toThrow(UsageError);
    expect(() => rangeValues("x", "0x1:5:1")).toThrow(/start "0x1"/);
    expect(() => rangeValues("x", "0:5:0")).toThrow(/never goes from 0 to 5/);
    expect(() => rangeValues("x", "5:0:1")).toThrow(/never goes from 5 to 0/);
    expect(() => rangeValues("x", "1:2")).toThrow(/three numbers/);
    expect(() => rangeValues("x", "0:1e9:1")).toThrow(/more than 100000/);
  });

  it("reads a comma list as texts, typed later by the axis", () => {
    expect(parseGridValues("c", "0, 0.001,0.002")).toEqual({
      kind: "list",
      texts: ["0", "0.001", "0.002"],
    });
    expect(parseGridValues("b", "true,false")).toEqual({ kind: "list", texts: ["true", "false"] });
    expect(() => parseGridValues("c", "1,,2")).toThrow(/value 2 is empty/);
    expect(() => parseGridValues("c", " ")).toThrow(/has no values/);
  });

  it("splits name=values at the first =", () => {
    expect(splitGridArg("fast=5:50:5")).toEqual({ name: "fast", values: "5:50:5" });
    expect(() => splitGridArg("fast")).toThrow(/must look like name=values/);
    expect(() => splitGridArg("=1,2")).toThrow(UsageError);
  });
});
