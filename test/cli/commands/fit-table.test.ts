import { describe, expect, it } from "vitest";
import { type FitColumn, fitTable } from "../../../src/cli/commands/fit-table.js";
import { terminalWidth } from "../../../src/cli/terminal-width.js";

const COLS: FitColumn[] = [
  { header: "ID", align: "left" },
  { header: "NAME", align: "left", cuts: [[1, 6]] },
  { header: "NOTE", align: "left", min: 4, drop: 1 },
  { header: "N", align: "right", drop: 2 },
];
const ROWS = [["20260101-000000", "sma-crossover", "some long note", "42"]];

describe("fitTable", () => {
  it("shows every column whole when it fits (15+2+13+2+14+2+2 = 50)", () => {
    expect(fitTable(COLS, ROWS, 50).split("\n")[1]).toBe(
      "20260101-000000  sma-crossover  some long note  42",
    );
  });

  it("cuts a plain min column first, then drops by rank, then cuts the name", () => {
    // 49: NOTE gives one character.
    expect(fitTable(COLS, ROWS, 49).split("\n")[1]).toBe(
      "20260101-000000  sma-crossover  some long no…  42",
    );
    // 36 = 15+2+13+2+4 = NOTE at its min of 4 with N would need 40: NOTE is dropped, the name whole.
    expect(fitTable(COLS, ROWS, 36).split("\n")[1]).toBe("20260101-000000  sma-crossover  42");
    // 30: the name is cut (NOTE's rank 1 is dropped): 15+2+9+2+2.
    expect(fitTable(COLS, ROWS, 30).split("\n")[1]).toBe("20260101-000000  sma-cros…  42");
  });

  it("never cuts or drops a column without min or drop: the id stays whole past the width", () => {
    expect(fitTable(COLS, ROWS, 10).split("\n")[1]).toBe("20260101-000000  sma-c…");
  });
});

describe("terminalWidth", () => {
  it("a TTY's columns; else a valid COLUMNS; else 100", () => {
    expect(terminalWidth({ isTTY: true, columns: 132 }, { COLUMNS: "80" })).toBe(132);
    expect(terminalWidth({ isTTY: false }, { COLUMNS: "80" })).toBe(80);
    for (const bad of ["", "abc", "0", "19", "1001", "80x", "-80", "8e1"]) {
      expect(terminalWidth({}, { COLUMNS: bad }), bad).toBe(100);
    }
    expect(terminalWidth({}, {})).toBe(100);
  });
});
