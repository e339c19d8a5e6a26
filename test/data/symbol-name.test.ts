import { describe, expect, it } from "vitest";
import { DataError } from "../../src/data/data-error.js";
import { parseSymbolArg, symbolFromFile } from "../../src/data/symbol-name.js";

describe("symbolFromFile", () => {
  it.each([
    ["data/orcl-1995-2014.txt", "ORCL"],
    ["data/SPY_D.csv", "SPY"],
    ["GOOG.csv", "GOOG"],
    ["/abs/path/2006-day-001.txt", "2006"],
    ["btcusd", "BTCUSD"],
    [".hidden.csv", ".HIDDEN.CSV"],
  ])("%s -> %s", (file, symbol) => {
    expect(symbolFromFile(file)).toBe(symbol);
  });
});

describe("parseSymbolArg", () => {
  it("splits SYM=path at the first =", () => {
    expect(parseSymbolArg("AAPL=data/a=b.csv")).toEqual({ symbol: "AAPL", file: "data/a=b.csv" });
    expect(parseSymbolArg("BRK.B=x.csv")).toEqual({ symbol: "BRK.B", file: "x.csv" });
  });

  it("treats an argument without a symbol-like prefix as a plain path", () => {
    expect(parseSymbolArg("data/GOOG.csv")).toEqual({ file: "data/GOOG.csv" });
    expect(parseSymbolArg("dir/x=y.csv")).toEqual({ file: "dir/x=y.csv" });
  });

  it("rejects SYM= with no file as bad input", () => {
    const error = (() => {
      try {
        parseSymbolArg("AAPL=");
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(DataError);
    expect((error as DataError).exitCode).toBe(2);
    expect((error as DataError).message).toContain("AAPL=path/to/bars.csv");
  });
});
