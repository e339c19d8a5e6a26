import path from "node:path";
import { DataError } from "./data-error.js";

/**
 * The symbol a file stands for when none is given: its base name upper-cased up to the first `-`,
 * `_` or `.`, so `orcl-1995-2014.txt` is ORCL and `SPY_D.csv` is SPY.
 */
export function symbolFromFile(file: string): string {
  const base = path.basename(file);
  const stem = base.split(/[-_.]/, 1)[0] ?? "";
  // A name that starts with a separator (".spy.csv") has no stem; fall back to the whole name.
  return (stem === "" ? base : stem).toUpperCase();
}

// A symbol as typed on the command line: no path separators, so `dir/a=b.csv` stays a path.
const SYMBOL = /^[A-Za-z0-9^.][A-Za-z0-9^.:_-]*$/;

/** Splits a `--data` argument of the form `SYM=path`; a plain path has no symbol. */
export function parseSymbolArg(arg: string): { symbol?: string; file: string } {
  const eq = arg.indexOf("=");
  if (eq < 0) return { file: arg };
  const symbol = arg.slice(0, eq).trim();
  if (!SYMBOL.test(symbol)) return { file: arg };
  const file = arg.slice(eq + 1);
  if (file.trim() === "") {
    throw new DataError({
      file: arg,
      line: null,
      column: null,
      problem: `no file after "${symbol}="`,
      fix: `Write the symbol and the file as ${symbol}=path/to/bars.csv.`,
    });
  }
  return { symbol, file };
}
