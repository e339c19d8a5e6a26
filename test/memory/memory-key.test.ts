import { describe, expect, it } from "vitest";
import {
  MemoryKeyError,
  validateMemoryKey,
  validatePeriodKey,
} from "../../src/memory/memory-key.js";

describe("validateMemoryKey", () => {
  it.each(["position_AAPL", "experience.v2", "a", "x".repeat(100), "market-regime_2024.Q1"])(
    "accepts %j unchanged",
    (key) => {
      expect(validateMemoryKey(key)).toBe(key);
    },
  );

  it.each([
    ["../playbook", "path separator"],
    ["/etc/x", "path separator"],
    ["a/b", "path separator"],
    ["a\\b", "path separator"],
    ["..", '".."'],
    ["a..b", '".."'],
    [".hidden", 'starts with "."'],
    ["x".repeat(101), "101 characters"],
    ["", "empty"],
    ["a\0b", "NUL"],
    ["仓位", "character other than"],
    ["café", "character other than"],
    ["a b", "character other than"],
  ])("rejects %j (%s)", (key, problem) => {
    let caught: unknown;
    try {
      validateMemoryKey(key);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(MemoryKeyError);
    const message = (caught as MemoryKeyError).message;
    expect(message).toContain(problem);
    expect(message).toContain('e.g. "position_AAPL"');
    expect((caught as MemoryKeyError).key).toBe(key);
  });

  it("shortens a long key in the message", () => {
    expect(() => validateMemoryKey("y".repeat(500))).toThrow(`"${"y".repeat(60)}…"`);
  });
});

describe("validatePeriodKey", () => {
  it.each([
    ["week", "2024-W07"],
    ["week", "2020-W53"],
    ["month", "2024-03"],
    ["month", "2024-12"],
  ] as const)("accepts %s %s", (period, key) => {
    expect(validatePeriodKey(period, key)).toBe(key);
  });

  it.each([
    ["week", "2024-W7"],
    ["week", "2024-W00"],
    ["week", "2024-W54"],
    ["week", "2024-03"],
    ["month", "2024-13"],
    ["month", "2024-3"],
    ["month", "2024-W07"],
    ["month", "../2024-03"],
  ] as const)("rejects %s %s", (period, key) => {
    expect(() => validatePeriodKey(period, key)).toThrow(MemoryKeyError);
  });
});
