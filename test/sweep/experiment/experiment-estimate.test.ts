import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CHARS_PER_TOKEN } from "../../../src/agent/llm/usage-meter.js";
import { brokerConfig } from "../../../src/engine/broker-config.js";
import { DEFAULT_AGENT_OPTIONS } from "../../../src/runner/agent-options.js";
import { DEFAULT_RECALL_OPTIONS, type RunConfig } from "../../../src/runner/run-config.js";
import {
  type CellProbe,
  estimateExperiment,
  estimateRun,
  probeExperiment,
  tokensOf,
  type WindowProbe,
} from "../../../src/sweep/experiment/experiment-estimate.js";

// Hand-computed: the assumptions are ROUNDS_PER_DECISION 0 / 0.5 / 2, ROUNDS_PER_MOMENT 0 / 0 / 1,
// PROMPT_GROWTH 0 / 0 / 0.5 and COMPLETION_TOKENS 10 / 50 / 400 (low / point / high).

/** 10 daily bars, a decision every 2nd, a memory turn at each bar's end, fills prompt too. */
const memoryWindow: WindowProbe = {
  decisionChars: 4000, // 1000 tokens
  momentChars: 2000, // 500 tokens
  bars: 10,
  decisions: 5,
  momentBars: 10,
  tradeMoments: true,
};

/** 6 bars, a decision at each, no memory turns. */
const plainWindow: WindowProbe = {
  decisionChars: 4001, // 1001 tokens: rounded up
  momentChars: null,
  bars: 6,
  decisions: 6,
  momentBars: 0,
  tradeMoments: false,
};

const A: CellProbe = {
  label: "memory=files",
  model: "m-a",
  price: { input: 1, cachedInput: 0.5, output: 2 },
  maxSteps: 8,
  maxOutputTokens: null,
  windows: [memoryWindow],
};
const B: CellProbe = {
  label: "memory=none",
  model: "m-b",
  price: null,
  maxSteps: 2,
  maxOutputTokens: 100,
  windows: [plainWindow],
};

describe("tokensOf", () => {
  it("divides by CHARS_PER_TOKEN, rounding up, as the usage meter does", () => {
    expect(CHARS_PER_TOKEN).toBe(4);
    expect(tokensOf(4000)).toBe(1000);
    expect(tokensOf(4001)).toBe(1001);
    expect(tokensOf(0)).toBe(0);
  });
});

describe("estimateRun", () => {
  it("counts decisions and memory turns, with tool rounds in the point and the high", () => {
    // Calls: decisions 5 × (1, 1.5, 3) + memory turns 10 × (1, 1, 2).
    // Prompt: 5×1000 + 10×500; 7.5×1000 + 10×500; (15×1000 + 20×500) × 1.5.
    // Completion: calls × (10, 50, 400).
    expect(estimateRun(memoryWindow, 8, null)).toEqual({
      calls: { low: 15, point: 17.5, high: 35 },
      prompt: { low: 10_000, point: 12_500, high: 37_500 },
      completion: { low: 150, point: 875, high: 14_000 },
    });
  });

  it("bounds a turn's calls by --max-steps and the high completion by --max-output-tokens", () => {
    // Decisions 6 × (1, 1.5, min(2, 3)); no memory turn.
    expect(estimateRun(plainWindow, 2, 100)).toEqual({
      calls: { low: 6, point: 9, high: 12 },
      prompt: { low: 6006, point: 9009, high: 18_018 },
      completion: { low: 60, point: 450, high: 1200 },
    });
  });

  it("adds a memory turn per decision bar in the high when fills and closes prompt", () => {
    // Intraday: 20 bars, 2 day ends, a decision every 5th bar: up to 2 + 4 memory turns.
    const w = { ...memoryWindow, bars: 20, decisions: 4, momentBars: 2 };
    const r = estimateRun(w, 8, null);
    expect(r.calls).toEqual({ low: 4 + 2, point: 6 + 2, high: 12 + 6 * 2 });
    const off = estimateRun({ ...w, tradeMoments: false }, 8, null);
    expect(off.calls.high).toBe(12 + 2 * 2);
  });
});

describe("estimateExperiment", () => {
  const e = estimateExperiment([A, B], 2, "test prices");

  it("multiplies each cell's runs by the repeats", () => {
    const [a, b] = e.cells;
    expect(a).toMatchObject({
      label: "memory=files",
      runs: 2,
      decisions: 10,
      moments: 20,
      firstPromptTokens: 1000,
      calls: { low: 30, point: 35, high: 70 },
      promptTokens: { low: 20_000, point: 25_000, high: 75_000 },
      completionTokens: { low: 300, point: 1750, high: 28_000 },
      tokens: { low: 20_300, point: 26_750, high: 103_000 },
    });
    // USD: (prompt × 1 + completion × 2) / 1M, no prompt-cache discount.
    expect(a?.usd?.low).toBeCloseTo(0.0206, 12);
    expect(a?.usd?.point).toBeCloseTo(0.0285, 12);
    expect(a?.usd?.high).toBeCloseTo(0.131, 12);
    expect(b).toMatchObject({
      runs: 2,
      decisions: 12,
      moments: 0,
      firstPromptTokens: 1001,
      calls: { low: 12, point: 18, high: 24 },
      tokens: { low: 12_132, point: 18_918, high: 38_436 },
    });
  });

  it("shows an unknown price as null, for the cell and the total, never 0", () => {
    expect(e.cells[1]?.usd).toBeNull();
    expect(e.cells[1]?.price).toBeNull();
    expect(e.usd).toBeNull();
  });

  it("adds the cells up", () => {
    expect(e).toMatchObject({
      runs: 4,
      decisions: 22,
      moments: 20,
      calls: { low: 42, point: 53, high: 94 },
      tokens: { low: 32_432, point: 45_668, high: 141_436 },
      prices: "test prices",
      charsPerToken: 4,
    });
    const priced = estimateExperiment([A, { ...A, label: "twice" }], 1, "p");
    expect(priced.usd?.point).toBeCloseTo(2 * 0.01425, 12);
  });
});

describe("probeExperiment", () => {
  const data = path.resolve("data", "GOOG.csv");
  const windows = [
    { from: "2012-01-01", to: "2012-06-30" },
    { from: "2012-07-01", to: "2012-12-31" },
  ];
  const base: RunConfig = {
    strategyPath: path.resolve("strategies", "rsi-mean-reversion.md"),
    data: [{ file: data }],
    broker: brokerConfig({}),
    params: {},
    from: null,
    to: null,
    name: null,
    runsRoot: path.resolve("never-written"),
    strict: false,
    tz: null,
    // Nothing is sent: the probe answers the agent itself.
    agent: {
      ...DEFAULT_AGENT_OPTIONS,
      model: "gpt-4o-mini",
      baseURL: "http://127.0.0.1:9/v1",
      every: 5,
    },
    presets: [],
    memoryFrom: null,
    recall: DEFAULT_RECALL_OPTIONS,
  };

  it("measures each cell's first prompt with the agent's code, a larger one with memory", async () => {
    const e = await probeExperiment(
      [
        { label: "none", run: { ...base, memory: { system: "none", config: null } } },
        { label: "files", run: { ...base, memory: { system: "files", config: null } } },
      ],
      windows,
      3,
    );
    const [none, files] = e.cells;
    // The window's bars, counted in the file: a decision every 5th of them.
    const days = fs
      .readFileSync(data, "utf8")
      .split("\n")
      .map((l) => l.slice(0, 10));
    const [h1, h2] = windows.map((w) => days.filter((d) => d >= w.from && d <= w.to).length);
    expect(none?.decisions).toBe(
      3 * (Math.ceil((h1 as number) / 5) + Math.ceil((h2 as number) / 5)),
    );
    expect(none?.moments).toBe(0);
    // files: a memory turn at every day's end, decision or not.
    expect(files?.moments).toBe(3 * ((h1 as number) + (h2 as number)));
    expect(files?.firstPromptTokens).toBeGreaterThan(none?.firstPromptTokens ?? Infinity);
    expect(e.prices).toContain("default price table");
    expect(e.usd).not.toBeNull();
  });

  it("measures the memory a run is seeded with: a --preset playbook enlarges the prompt", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-estimate-"));
    try {
      const lessons = `# Playbook\n\n${"- A lesson of eighty characters, written down after a losing trade in 2011.\n".repeat(40)}`;
      const file = path.join(dir, "playbook.md");
      fs.writeFileSync(file, lessons);
      const files = { ...base, memory: { system: "files", config: null } };
      const plain = await probeExperiment([{ label: "a", run: files }], windows, 1);
      const seeded = await probeExperiment(
        [{ label: "b", run: { ...files, presets: [{ target: "playbook.md", file }] } }],
        windows,
        1,
      );
      const grew =
        (seeded.cells[0]?.firstPromptTokens ?? 0) - (plain.cells[0]?.firstPromptTokens ?? 0);
      // The preset replaces the default playbook (a line or two): about its length in tokens,
      // a little more for JSON's escaped newlines.
      expect(grew).toBeGreaterThan(lessons.length / 4 - 60);
      expect(grew).toBeLessThan(lessons.length / 4 + 60);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
