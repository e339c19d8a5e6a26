import { describe, expect, it } from "vitest";
import { diffTrades } from "../../src/report/trade-diff.js";
import type { TradeKey } from "../../src/rundir/schemas.js";

const trade = (entry: string, qty: number, side = "long"): TradeKey => ({
  symbol: "GOOG",
  side,
  entryTime: entry,
  exitTime: `${entry}x`,
  qty,
  returnPct: null,
});

describe("diffTrades", () => {
  it("matches trades by symbol, side, entry, exit and quantity, and counts those resized in the other run", () => {
    const a = [trade("d1", 10), trade("d2", 10), trade("d3", 5), trade("d4", 7), trade("d4", 7)];
    const b = [trade("d1", 10), trade("d2", 9), trade("d3", 5, "short"), trade("d4", 8)];
    const d = diffTrades(a, b);
    expect(d.common).toBe(1);
    expect(d.onlyA.map((t) => [t.entryTime, t.qty])).toEqual([
      ["d2", 10],
      ["d3", 5],
      ["d4", 7],
      ["d4", 7],
    ]);
    expect(d.onlyB.map((t) => [t.entryTime, t.qty])).toEqual([
      ["d2", 9],
      ["d3", 5],
      ["d4", 8],
    ]);
    // d2 and one of the d4s: the same trade with another quantity. d3 changed side: a new trade.
    expect(d.resized).toBe(2);
  });
});
