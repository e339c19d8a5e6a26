import { describe, expect, it } from "vitest";
import { escapeControl, escapeStrings, jsonForTerminal } from "../../src/util/terminal-text.js";

// What a terminal would act on: ESC (clear screen, move the cursor, retitle the window), BEL, a C1
// CSI (0x9b acts like ESC [ on some terminals) and a bidi override (reorders what follows).
const HOSTILE = "a\u001b[2Jb\u0007c\u009bd\u202ee\r\u007f";

describe("escapeControl", () => {
  it("shows C0, DEL, C1 and bidi overrides visibly, keeping newlines and tabs", () => {
    expect(escapeControl(HOSTILE)).toBe("a␛[2Jb␇c\\x9bd\\u202ee␍␡");
    expect(escapeControl("line 1\n\tline 2")).toBe("line 1\n\tline 2");
    expect(escapeControl("\u0000\u001f\u0080\u009f\u202a\u2066\u2069")).toBe(
      "␀␟\\x80\\x9f\\u202a\\u2066\\u2069",
    );
  });

  it("leaves ordinary text alone, Chinese and emoji included", () => {
    const text = "止损 at 2% — NVDA 🚀 «ok»";
    expect(escapeControl(text)).toBe(text);
  });
});

describe("escapeStrings", () => {
  it("escapes every string of a value, keys included, and keeps numbers and nulls", () => {
    expect(escapeStrings({ "k\u001b": ["\u0007", 1, null, { s: "\u202e" }] })).toEqual({
      "k␛": ["␇", 1, null, { s: "\\u202e" }],
    });
  });
});

describe("jsonForTerminal", () => {
  it("is JSON that parses back to the same value, with no raw control or bidi character", () => {
    const value = { note: HOSTILE, n: 1 };
    const text = jsonForTerminal(value);
    expect(JSON.parse(text)).toEqual(value);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters under test
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });
});
