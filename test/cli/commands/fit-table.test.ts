import { describe, expect, it } from "vitest";
import {
  clip,
  type FitColumn,
  fitTable,
  pad,
  textWidth,
} from "../../../src/cli/commands/fit-table.js";
import { wrap } from "../../../src/cli/commands/text-layout.js";
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

describe("tables measure columns, not UTF-16 units", () => {
  // 贵州茅台 is four wide characters (8 columns, 4 units); 📈 is one emoji (2 columns, 2 units);
  // é here is e and a combining accent (1 column, 2 units).
  const cols: FitColumn[] = [
    { header: "SYMBOL", align: "left", min: 4 },
    { header: "NOTE", align: "left" },
    { header: "N", align: "right" },
  ];
  const rows = [
    ["贵州茅台", "📈 up", "1"],
    ["GOOG", "cafe\u0301", "22"],
    ["SPY", "plain", "333"],
  ];
  /** The terminal column at which `cell` starts on `line`. */
  const columnOf = (line: string, cell: string) => textWidth(line.slice(0, line.indexOf(cell)));

  it("starts every column at the same terminal column on each line, with CJK and an emoji", () => {
    const lines = fitTable(cols, rows, 100).split("\n");
    const noteAt = lines.map((l, k) => columnOf(l, k === 0 ? "NOTE" : (rows[k - 1]?.[1] ?? "")));
    expect(new Set(noteAt).size).toBe(1);
    // SYMBOL is 8 columns wide (贵州茅台), then the 2-column gap.
    expect(noteAt[0]).toBe(10);
    // The right-aligned last column ends every line at the same column.
    expect(new Set(lines.map(textWidth)).size).toBe(1);
  });

  it("cuts a wide-character cell to its columns without splitting a character", () => {
    // Whole, the table is 8+2+5+2+3 = 20 columns; at 17 SYMBOL gives 3: 贵州 and the mark.
    const lines = fitTable(cols, rows, 17).split("\n");
    expect(lines[1]).toBe("贵州…  📈 up    1");
    expect(lines.map(textWidth)).toEqual([17, 17, 17, 17]);
    expect(clip("贵州茅台", 4)).toBe("贵…");
    expect(textWidth(clip("贵州茅台", 4))).toBe(3);
    expect(clip("📈📈📈", 5)).toBe("📈📈…");
  });

  it("pads by columns", () => {
    expect(pad("茅台", 6)).toBe("茅台  ");
    expect(pad("📈", 4, "right")).toBe("  📈");
  });
});

describe("wrap", () => {
  it("breaks lines of note keys by their terminal width", () => {
    const keys = ["风险控制", "止损规则", "仓位管理", "趋势跟踪"];
    const lines = wrap(keys, "  + ", 24);
    for (const l of lines) expect(textWidth(l)).toBeLessThanOrEqual(24);
    expect(lines.join(" ").replace(/[+,\s]/g, "")).toBe(keys.join(""));
    expect(lines.length).toBeGreaterThan(1);
  });
});
