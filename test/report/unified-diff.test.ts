import { describe, expect, it } from "vitest";
import { diffConfig, flatten } from "../../src/report/config-diff.js";
import { parseAt } from "../../src/report/decisions-at.js";
import { unifiedDiff } from "../../src/report/unified-diff.js";

const labels = { a: "a.md", b: "b.md" };
const lines = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `line ${i + from}`);

describe("unifiedDiff", () => {
  it("is empty for equal texts", () => {
    expect(unifiedDiff("x\ny\n", "x\ny\n", labels)).toBe("");
  });

  it("shows one change with three lines of context and diff(1)'s hunk header", () => {
    const a = `${lines(10).join("\n")}\n`;
    const b = a.replace("line 5\n", "line five\n");
    expect(unifiedDiff(a, b, labels)).toBe(
      [
        "--- a.md",
        "+++ b.md",
        "@@ -2,7 +2,7 @@",
        " line 2",
        " line 3",
        " line 4",
        "-line 5",
        "+line five",
        " line 6",
        " line 7",
        " line 8",
        "",
      ].join("\n"),
    );
  });

  it("splits distant changes into two hunks and joins changes 6 lines apart into one", () => {
    const a = lines(30);
    const far = [...a];
    far[2] = "x";
    far[25] = "y";
    const hunks = (b: string[]) =>
      unifiedDiff(a.join("\n"), b.join("\n"), labels)
        .split("\n")
        .filter((l) => l.startsWith("@@"));
    expect(hunks(far)).toEqual(["@@ -1,6 +1,6 @@", "@@ -23,7 +23,7 @@"]);
    const near = [...a];
    near[2] = "x";
    near[9] = "y"; // 6 unchanged lines between: the contexts meet
    expect(hunks(near)).toEqual(["@@ -1,13 +1,13 @@"]);
  });

  it("counts pure insertions and deletions, including from an empty file", () => {
    expect(unifiedDiff("", "a\nb\n", labels)).toBe("--- a.md\n+++ b.md\n@@ -0,0 +1,2 @@\n+a\n+b\n");
    const d = unifiedDiff("a\nb\nc\n", "a\nc\n", labels);
    expect(d).toBe("--- a.md\n+++ b.md\n@@ -1,3 +1,2 @@\n a\n-b\n c\n");
  });

  it("keeps the common lines when lines move (longest common subsequence)", () => {
    const d = unifiedDiff("a\nb\nc\nd\n", "b\nc\nd\na\n", labels);
    expect(d.split("\n").filter((l) => /^[-+]/.test(l) && !/^(---|\+\+\+)/.test(l))).toEqual([
      "-a",
      "+a",
    ]);
  });
});

describe("config flattening", () => {
  it("flattens nested objects and arrays to dotted keys, keeping empty containers", () => {
    expect(flatten({ a: { b: 1, c: [{ d: "x" }] }, e: [], f: null })).toEqual({
      "a.b": 1,
      "a.c.0.d": "x",
      e: [],
      f: null,
    });
  });

  it("reports changed, added and removed keys and ignores the run id", () => {
    const d = diffConfig(
      { id: "1", params: { fast: 5, slow: 30 }, tz: null },
      { id: "2", params: { fast: 10 }, tz: null, strict: true },
    );
    expect(d).toEqual({
      changed: [{ key: "params.fast", a: 5, b: 10 }],
      added: [{ key: "strict", b: true }],
      removed: [{ key: "params.slow", a: 30 }],
    });
  });
});

describe("parseAt", () => {
  it("accepts dates and date-times in the form of run time labels", () => {
    expect(parseAt("2012-03-15")).toBe("2012-03-15");
    expect(parseAt("2012-03-15T09:30")).toBe("2012-03-15 09:30");
    expect(parseAt("2012-03-15 09:30:05")).toBe("2012-03-15 09:30:05");
  });

  it("refuses impossible dates and other formats with exit code 2", () => {
    for (const bad of ["2012-02-30", "15/03/2012", "2012-3-15", "2012-03-15 25:00", "yesterday"]) {
      expect(() => parseAt(bad), bad).toThrow(expect.objectContaining({ exitCode: 2 }));
    }
  });
});
