import { describe, expect, it } from "vitest";
import {
  explainDivergence,
  memoryCounts,
  tradeCounts,
  tradeReturn,
} from "../../src/report/diff-wording.js";
import { firstDivergence } from "../../src/report/divergence.js";
import type { DecisionView, TradeKey } from "../../src/rundir/schemas.js";

/** A decisions.jsonl line of a code run that placed one market order. */
function ordered(time: string, bar: number, side: "buy" | "sell", fraction = 1): DecisionView {
  return {
    time,
    bar,
    type: "bar",
    kind: "bar",
    contextHash: null,
    toolCalls: [],
    orders: [
      {
        id: bar,
        symbol: "GOOG",
        side,
        type: "market",
        size: { kind: "fraction", fraction },
        limitPrice: null,
        stopPrice: null,
        stopLoss: null,
        takeProfit: null,
        status: "working",
        reason: null,
        tag: null,
      },
    ],
    cancels: [],
    memory: [],
    rationale: null,
    recalls: [],
    tokens: null,
    error: null,
    requestHashes: [],
    context: null,
  };
}

describe("explainDivergence: the first divergence in words", () => {
  it("says which run acted and that the other did nothing when only one run has a decision there", () => {
    const a = [ordered("2004-11-01", 50, "buy")];
    const b = [ordered("2004-11-01", 50, "buy"), ordered("2004-11-30", 71, "sell")];
    const d = firstDivergence(a, b);
    expect(d).toMatchObject({ time: "2004-11-30", barA: null, barB: 71 });
    const w = explainDivergence(d);
    expect(w.sentence).toBe(
      "First divergence at 2004-11-30, bar 71: run B acted and run A did nothing. Until then, both runs made the same decisions.",
    );
    expect(w.a).toBe("nothing (no order, no tool call at this bar)");
    expect(w.b).toBe(d.b);
    expect(w.b).toContain("sell market fraction 1 GOOG");
    // Swapping the runs swaps the roles, not the wording.
    const back = explainDivergence(firstDivergence(b, a));
    expect(back.sentence).toContain("bar 71: run A acted and run B did nothing.");
    expect(back.b).toBe("nothing (no order, no tool call at this bar)");
  });

  it("says both acted, differently, at the shared bar, and gives each run's orders", () => {
    const d = firstDivergence(
      [ordered("2005-01-03", 90, "buy", 1)],
      [ordered("2005-01-03", 90, "buy", 0.5)],
    );
    const w = explainDivergence(d);
    expect(w.sentence).toBe(
      "First divergence at 2005-01-03, bar 90: both runs acted, differently. Until then, both runs made the same decisions.",
    );
    expect(w.a).toContain("fraction 1 GOOG");
    expect(w.b).toContain("fraction 0.5 GOOG");
  });

  it("names each run's bar when the same time is another bar in each (different data starts)", () => {
    const w = explainDivergence(
      firstDivergence([ordered("2005-01-03", 90, "buy")], [ordered("2005-01-03", 12, "sell")]),
    );
    expect(w.sentence).toContain("2005-01-03 (bar 90 of run A, bar 12 of run B): both runs acted");
  });

  it("says the decisions never differ, with no per-run lines, when they are identical", () => {
    const lines = [ordered("2004-11-30", 71, "buy")];
    const w = explainDivergence(firstDivergence(lines, lines));
    expect(w.sentence).toBe(
      "First divergence: none. Both runs made the same decisions (orders and tool calls) at every bar.",
    );
    expect(w.a).toBeNull();
    expect(w.b).toBeNull();
  });
});

describe("tradeCounts and memoryCounts", () => {
  const trade = (qty: number): TradeKey => ({
    symbol: "GOOG",
    side: "long",
    entryTime: "2005-01-03",
    exitTime: "2005-02-01",
    qty,
    returnPct: 1,
  });

  it("counts the trades in both and in one run only, and names the resized ones", () => {
    const t = { onlyA: [trade(40), trade(41)], onlyB: [trade(39)], common: 5, resized: 1 };
    expect(tradeCounts(t)).toBe(
      "5 in both, 2 only in A, 1 only in B (1 of them the same trade in both, with another quantity)",
    );
    expect(tradeCounts({ ...t, resized: 0 })).toBe("5 in both, 2 only in A, 1 only in B");
  });

  it("prints a trade's return signed with two decimals, a rounded zero as 0.00%, none as nothing", () => {
    expect(tradeReturn({ ...trade(1), returnPct: 24.5249 })).toBe("+24.52%");
    expect(tradeReturn({ ...trade(1), returnPct: -6.0449 })).toBe("-6.04%");
    expect(tradeReturn({ ...trade(1), returnPct: -0.001 })).toBe("0.00%");
    expect(tradeReturn({ ...trade(1), returnPct: null })).toBe("");
  });

  it("counts added, changed, removed and unchanged memory files", () => {
    expect(
      memoryCounts({ added: ["notes/a.md"], changed: [], removed: ["notes/b.md"], unchanged: 3 }),
    ).toBe("1 added, 0 changed, 1 removed, 3 unchanged (attribution lines ignored)");
  });
});
