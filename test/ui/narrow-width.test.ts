import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { render } from "ink-testing-library";
import { createElement } from "react";
import { describe, expect, it } from "vitest";
import { initialLiveState, type LiveState } from "../../src/ui/live-state.js";
import { LiveView } from "../../src/ui/live-view.js";
import { narrowWidth } from "../../src/ui/narrow-width.js";

type Width = (text: string) => number;

/** Where Node finds package `name` from a file in `dir`: the first node_modules/<name> up. */
function packageDir(name: string, dir: string): string {
  for (let d = dir; ; d = path.dirname(d)) {
    const candidate = path.join(d, "node_modules", name);
    if (fs.existsSync(path.join(candidate, "package.json"))) return candidate;
    if (path.dirname(d) === d) throw new Error(`${name} not found from ${dir}`);
  }
}

/** The string-width copies the view's bundle puts narrowWidth in front of: ink's and
 * wrap-ansi's (a nested copy when their versions differ), found as Node and esbuild find them. */
async function stringWidths(): Promise<[string, Width][]> {
  const ink = packageDir("ink", process.cwd());
  const wrap = packageDir("wrap-ansi", ink);
  const dirs = [...new Set([packageDir("string-width", ink), packageDir("string-width", wrap)])];
  const out: [string, Width][] = [];
  for (const d of dirs) {
    const main = path.join(d, "index.js");
    out.push([d, (await import(pathToFileURL(main).href)).default as Width]);
  }
  return out;
}

/** A deterministic pseudo-random generator (xorshift), so a failure replays. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
}

const SGR = [
  "\u001b[1m",
  "\u001b[22m",
  "\u001b[2m",
  "\u001b[32m",
  "\u001b[39m",
  "\u001b[m",
  "\u001b[38;5;214m",
];
const NARROW_CHARS = "·—…›“”█░";

describe("narrowWidth", () => {
  it("is string-width's answer for printable ASCII, the view's symbols and SGR escapes", async () => {
    const widths = await stringWidths();
    expect(widths.length).toBeGreaterThanOrEqual(1);
    const next = random(7);
    const ascii = Array.from({ length: 95 }, (_, k) => String.fromCharCode(0x20 + k)).join("");
    for (let n = 0; n < 2000; n++) {
      let text = "";
      const len = Math.floor(next() * 40);
      for (let k = 0; k < len; k++) {
        const r = next();
        if (r < 0.1) text += SGR[Math.floor(next() * SGR.length)];
        else if (r < 0.25) text += NARROW_CHARS[Math.floor(next() * NARROW_CHARS.length)];
        else text += ascii[Math.floor(next() * ascii.length)];
      }
      const mine = narrowWidth(text);
      expect(mine).toBeGreaterThanOrEqual(0);
      for (const [file, width] of widths)
        expect(mine, `${file}: ${JSON.stringify(text)}`).toBe(width(text));
    }
    for (const c of NARROW_CHARS) {
      for (const [file, width] of widths) expect(width(c), `${file}: ${c}`).toBe(1);
    }
  });

  it("leaves everything else to string-width (-1)", () => {
    for (const text of [
      "tab\there",
      "new\nline",
      "\u001b]8;;https://example.com\u0007link", // a hyperlink (OSC)
      "\u001b[2K", // erase line: not SGR
      "\u001b[1", // cut short
      "\u001b",
      "日本", // wide
      "e\u0301", // combining
      "😀",
      "\u00a0", // no-break space
      "\u007f",
    ]) {
      expect(narrowWidth(text), JSON.stringify(text)).toBe(-1);
    }
    expect(narrowWidth("")).toBe(0);
  });

  it("measures every line of the view's frames, so string-width itself never loads", () => {
    const state: LiveState = {
      ...initialLiveState({ maxCostUsd: 2, maxTokens: 100_000 }),
      runId: "20260101-000000-000-sma-ab12",
      strategy: "sma-crossover",
      symbols: ["GOOG", "SPY"],
      done: 250,
      total: 1000,
      time: "2006-03-14 10:31:00",
      equity: 11_250,
      returnPct: 12.5,
      benchmarkReturnPct: -5,
      drawdownPct: -3.5,
      maxDrawdownPct: -7.25,
      lastOrders: { time: "2006-03-14", bar: 250, orders: ["SELL 5 SPY market [exit]"], more: 2 },
      positions: [{ symbol: "GOOG", qty: 12 }],
      lastDecision: {
        time: "2006-03-14",
        bar: 250,
        orders: ["BUY 10 GOOG limit 101.5"],
        failed: false,
        rationale: "Momentum \u201cholds\u201d \u2014 buy\u2026",
      },
      toolCalls: ["get_bars", "recall"],
      counts: {
        fills: 3,
        tradesClosed: 1,
        trades: 2,
        openAtEnd: 1,
        rejected: 2,
        failedDecisions: 1,
        retries: 1,
      },
      warnings: ["a warning"],
      status: "completed",
    };
    const view = render(createElement(LiveView, { state, elapsedMs: 2000, notice: "Interrupted" }));
    const lines = (view.lastFrame() ?? "").split("\n");
    view.unmount();
    expect(lines.length).toBeGreaterThan(6);
    for (const line of lines)
      expect(narrowWidth(line), JSON.stringify(line)).toBeGreaterThanOrEqual(0);
  });
});
