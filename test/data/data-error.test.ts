import { describe, expect, it } from "vitest";
import { DataError } from "../../src/data/data-error.js";

describe("DataError", () => {
  it("formats file:line: column: problem. fix", () => {
    const e = new DataError({
      file: "a.csv",
      line: 7,
      column: "Close",
      problem: "the cell is empty",
      fix: "Fill it in.",
    });
    expect(e.message).toBe("a.csv:7: column Close: the cell is empty. Fill it in.");
    expect([e.file, e.line, e.column, e.exitCode, e.name]).toEqual([
      "a.csv",
      7,
      "Close",
      2,
      "DataError",
    ]);
    expect(e).toBeInstanceOf(Error);
  });

  it("leaves out the parts that are null and names an unnamed column", () => {
    const noLine = new DataError({
      file: "a.csv",
      line: null,
      column: null,
      problem: "p",
      fix: "F.",
    });
    expect(noLine.message).toBe("a.csv: p. F.");
    const unnamed = new DataError({ file: "a.csv", line: 2, column: "", problem: "p", fix: "F." });
    expect(unnamed.message).toBe("a.csv:2: column (unnamed): p. F.");
  });
});
