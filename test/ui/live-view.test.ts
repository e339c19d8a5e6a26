import { stripVTControlCharacters } from "node:util";
import { render } from "ink-testing-library";
import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { foldLiveEvent, initialLiveState, type LiveState } from "../../src/ui/live-state.js";
import { eta, LiveView, progressBar } from "../../src/ui/live-view.js";

function frame(
  state: LiveState,
  elapsedMs = 0,
  notice: string | null = null,
  columns = 100,
): string {
  const view = render(createElement(LiveView, { state, elapsedMs, notice, columns }));
  const out = stripVTControlCharacters(view.lastFrame() ?? "");
  view.unmount();
  return out;
}

const midRun = (): LiveState => ({
  ...initialLiveState(),
  runId: "20260101-000000-000-sma-ab12",
  strategy: "sma-crossover",
  symbols: ["GOOG"],
  done: 250,
  total: 1000,
  time: "2006-03-14",
  equity: 11_250,
  returnPct: 12.5,
  benchmarkReturnPct: 5,
  drawdownPct: -3.5,
  positions: [{ symbol: "GOOG", qty: 12 }],
});

/** An LLM run's figures: no cost, no budget, unless given. */
const llm = (figures: Partial<NonNullable<LiveState["llm"]>>): LiveState["llm"] => ({
  calls: 0,
  tokens: 0,
  costUsd: 0,
  costUnknown: false,
  maxCostUsd: null,
  maxTokens: null,
  ...figures,
});

describe("LiveView", () => {
  it("shows the progress bar, the simulated date, the bar count and the ETA", () => {
    // 250 of 1000 bars in 2 s: 750 left at 125 bars/s = 6 s.
    const out = frame(midRun(), 2000);
    expect(out).toContain(`${progressBar(250, 1000)}  25% 2006-03-14 · bar 250/1,000 · ETA 0:06`);
  });

  it("shows equity, the return against buy-and-hold and the drawdown", () => {
    const out = frame(midRun());
    expect(out).toContain("Equity 11,250.00");
    expect(out).toContain("Return +12.50%");
    expect(out).toContain("Buy & hold +5.00%");
    expect(out).toContain("Drawdown now -3.50%");
    expect(out).toContain("Positions GOOG 12");
  });

  it("shows a code run's fills, trades and rejected orders, no model's counts", () => {
    const s = midRun();
    s.counts = { ...s.counts, fills: 3, tradesClosed: 1, rejected: 2 };
    const out = frame(s);
    expect(out).toContain("Fills 3  trades closed 1  rejected 2");
    expect(out).not.toContain("failed decisions");
    expect(out).not.toContain("retries");
  });

  it("shows an LLM run's counts of rejected orders, failed decisions and retries", () => {
    const s = midRun();
    s.llm = llm({ calls: 1, tokens: 1 });
    s.counts = {
      ...s.counts,
      fills: 3,
      tradesClosed: 1,
      rejected: 2,
      failedDecisions: 1,
      retries: 4,
    };
    expect(frame(s)).toContain(
      "Fills 3  trades closed 1  rejected 2  failed decisions 1  retries 4",
    );
  });

  it("shows the last decision's orders and one line of rationale, and the tool ticker", () => {
    const s = midRun();
    s.lastDecision = {
      time: "2006-03-13",
      bar: 249,
      orders: ["BUY 12 GOOG market"],
      rationale: "RSI is 28,\nbelow 30: oversold in an uptrend.",
      failed: false,
    };
    s.toolCalls = ["get_bars", "get_indicator", "place_order"];
    const out = frame(s);
    expect(out).toContain("Last decision 2006-03-13: BUY 12 GOOG market");
    expect(out).toContain("“RSI is 28, below 30: oversold in an uptrend.”");
    expect(out).toContain("Tools get_bars › get_indicator › place_order");
  });

  it("shows LLM calls, tokens, cost and the budget left", () => {
    const s = midRun();
    s.llm = llm({ calls: 12, tokens: 34_567, costUsd: 0.0123, maxCostUsd: 0.05 });
    expect(frame(s)).toContain("LLM calls 12  tokens 34,567  cost $0.0123  budget left $0.0377");
  });

  it("prints stored text with its control characters made visible", () => {
    const s = midRun();
    s.strategy = "evil\u001b[2Jname";
    s.warnings = ["bad\u202erow"];
    const raw = render(createElement(LiveView, { state: s, elapsedMs: 0 }));
    const out = raw.lastFrame() ?? "";
    raw.unmount();
    expect(out).toContain("evil␛[2Jname");
    expect(out).not.toContain("\u001b[2J");
    expect(out).toContain("warning: bad\\u202erow");
  });

  it("shows a notice (Ctrl-C) and the final status", () => {
    const s = { ...midRun(), status: "interrupted" };
    const out = frame(s, 0, "Interrupted: finishing the current bar");
    expect(out).toContain("· interrupted");
    expect(out).toContain("Interrupted: finishing the current bar");
  });
});

describe("LiveView's labels", () => {
  it("says which drawdown is which: now, and the deepest so far", () => {
    const s = { ...midRun(), maxDrawdownPct: -12.25 };
    const out = frame(s);
    expect(out).toContain("Drawdown now -3.50%");
    expect(out).toContain("Max drawdown -12.25%");
    expect(out).not.toMatch(/(?<!Max )(?<!now )Drawdown (?!now)/);
  });

  it("counts trades as the summary does at the end: closed and still open", () => {
    const s = midRun();
    s.counts = { ...s.counts, tradesClosed: 32 };
    expect(frame(s)).toContain("trades closed 32");
    s.counts = { ...s.counts, trades: 33, openAtEnd: 1 };
    s.status = "completed";
    expect(frame(s)).toContain("trades 33 (1 open at end)");
  });

  it("reads an unknown cost as unknown, never $0.0000, and leaves out a budget it cannot tell", () => {
    const s = midRun();
    s.llm = llm({ calls: 3, tokens: 1200, costUnknown: true, maxCostUsd: 1 });
    const out = frame(s);
    expect(out).toContain("cost unknown");
    expect(out).not.toContain("$0.0000");
    expect(out).not.toContain("budget left");
  });

  it("shows a code run's last orders with their tags", () => {
    const s = midRun();
    s.lastOrders = {
      time: "2006-03-13",
      bar: 249,
      orders: ["BUY 12 GOOG market [entry]", "SELL 12 GOOG stop 95 [stop]"],
      more: 3,
    };
    expect(frame(s)).toContain(
      "Last orders 2006-03-13: BUY 12 GOOG market [entry], SELL 12 GOOG stop 95 [stop] +3 more",
    );
  });

  it("shows a model call in flight with its age, from a second on", () => {
    const s = midRun();
    s.llm = llm({ calls: 1, tokens: 10 });
    s.callStartedMs = 10_000;
    expect(frame(s, 10_500)).not.toContain("in flight");
    expect(frame(s, 52_400)).toContain("model call in flight 42 s");
    s.callStartedMs = null;
    expect(frame(s, 52_400)).not.toContain("in flight");
  });
});

describe("LiveView at a narrow width", () => {
  it("flows its figures onto more lines and narrows the bar: no line is wider than the terminal", () => {
    const s = midRun();
    s.done = 250_000;
    s.total = 1_000_000;
    s.llm = llm({
      calls: 12,
      tokens: 34_567,
      costUsd: 0.0123,
      maxCostUsd: 0.05,
      maxTokens: 90_000,
    });
    for (const columns of [40, 60, 80]) {
      const out = frame(
        s,
        2000,
        "Interrupted: finishing the current bar and writing the run",
        columns,
      );
      const lines = out.split("\n");
      for (const line of lines)
        expect(line.length, `${columns}: ${line}`).toBeLessThanOrEqual(columns);
      // Each figure whole on one line, never broken across two.
      expect(
        lines.some((l) => l.includes("Buy & hold +5.00%")),
        out,
      ).toBe(true);
      expect(
        lines.some((l) => l.includes("tokens left 55,433")),
        out,
      ).toBe(true);
    }
    // The progress line keeps its figures and gives up bar cells, then the bar, instead.
    const progressLine = (columns: number) => frame(s, 2000, null, columns).split("\n")[1] ?? "";
    expect(progressLine(80)).toMatch(
      /^\[[█░]{10,29}\] {2}25% 2006-03-14 · bar 250,000\/1,000,000 · ETA 0:06$/,
    );
    expect(progressLine(80)).toHaveLength(80);
    expect(progressLine(60)).toBe(" 25% 2006-03-14 · bar 250,000/1,000,000 · ETA 0:06");
  });

  it("cuts a line that cannot fit with an ellipsis rather than wrapping it", () => {
    const s = midRun();
    s.warnings = ["x".repeat(200)];
    const out = frame(s, 0, null, 50);
    const warning = out.split("\n").find((l) => l.startsWith("warning:")) ?? "";
    expect(warning).toHaveLength(50);
    expect(warning.endsWith("…")).toBe(true);
    expect(out).not.toMatch(/^x+$/m);
  });
});

describe("LiveView while the data loads", () => {
  it("shows the loading line alone: bytes read of the total, and for how long", () => {
    const s = initialLiveState();
    s.loading = { type: "loading", bytesRead: 12_345_678, bytesTotal: 46_000_000, elapsedMs: 250 };
    expect(frame(s)).toBe("Loading data 12.3 of 46.0 MB (26%) · 0.3 s");
  });
});

describe("eta", () => {
  it("is the time left at the pace so far", () => {
    expect(eta(0, 100, 5000)).toBe("—");
    expect(eta(50, 100, 30_000)).toBe("0:30");
    expect(eta(1, 100, 61_000)).toBe("1:40:39");
  });
});

describe("LiveView with a server that reports no usage", () => {
  it("shows tokens and cost as unknown, never 0, and no tokens left", () => {
    const s = initialLiveState({ maxCostUsd: null, maxTokens: 5000 });
    Object.assign(s, { runId: "r", strategy: "prompt", symbols: ["SPY"], total: 10 });
    const call = (unknown: boolean) =>
      foldLiveEvent(s, {
        type: "llm_call",
        model: "local-model",
        source: "network",
        tokens: unknown
          ? { prompt: 0, completion: 0, cached: 0, unknown: true }
          : { prompt: 100, completion: 10, cached: 0 },
        costUsd: unknown ? null : 0.001,
        latencyMs: 10,
        attempts: 1,
        error: null,
      });
    call(false);
    const known = frame(s);
    expect(known).toContain("tokens 110");
    expect(known).toContain("tokens left 4,890");
    call(true);
    const out = frame(s);
    expect(out).toContain("tokens unknown");
    expect(out).toContain("cost unknown");
    expect(out).not.toContain("tokens left");
  });
});
