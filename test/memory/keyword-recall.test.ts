import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Citation, recall } from "../../src/memory/keyword-recall.js";
import { MemoryWorkspace } from "../../src/memory/workspace.js";

const at = (wallClock: string): number => Date.parse(`${wallClock}:00Z`);

let parent: string;
let dir: string;
let ws: MemoryWorkspace;

beforeEach(() => {
  parent = fs.mkdtempSync(path.join(os.tmpdir(), "abt-recall-"));
  dir = path.join(parent, "run");
  ws = new MemoryWorkspace({ dir, runId: "r1" });
  ws.init("# Manual\n\nBuy oversold dips.\n");
});
afterEach(() => {
  fs.rmSync(parent, { recursive: true, force: true });
});

const where = (cs: Citation[]): string[] => cs.map((c) => `${c.path}:${c.startLine}`);

describe("recall over time", () => {
  const asOf = at("2024-03-15T12:00");

  beforeEach(() => {
    ws.note("playbook", "oversold fails in earnings", at("2024-03-01T16:00"));
    ws.note("playbook", "oversold late lesson", at("2024-03-20T16:00"));
    ws.log("oversold old", at("2024-03-08T10:00"));
    ws.log("oversold five days back", at("2024-03-10T10:00"));
    ws.log("oversold four days back", at("2024-03-11T10:00"));
    ws.log("oversold morning", at("2024-03-15T10:00"));
    ws.log("oversold afternoon", at("2024-03-15T15:00"));
    ws.log("oversold future", at("2024-03-18T10:00"));
    ws.note("position_AAPL", "oversold entry", at("2024-03-14T10:00"));
    ws.note("later", "oversold later", at("2024-03-16T10:00"));
    ws.review("week", "2024-W10", "oversold week 10", at("2024-03-08T16:00"));
    ws.review("week", "2024-W01", "oversold week 1", at("2024-01-05T16:00"));
    ws.review("month", "2024-01", "oversold january", at("2024-01-31T16:00"));
    ws.review("month", "2024-02", "oversold february", at("2024-02-29T16:00"));
    ws.review("month", "2024-03", "oversold march", at("2024-03-29T16:00"));
    const preset = path.join(parent, "experience.md");
    fs.writeFileSync(preset, "oversold preset\n");
    ws.seedPreset("notes/experience.md", preset);
  });

  it("as of a time, with decay: recent journals, weekly reviews <= 31 days, older monthly ones", () => {
    expect(where(recall(dir, "oversold", { asOf, limit: 100 }))).toEqual([
      "journal/2024-03-11.md:3",
      "journal/2024-03-15.md:3",
      "notes/experience.md:1",
      "notes/position_AAPL.md:2",
      "playbook.md:1",
      "playbook.md:7",
      "reviews/month_2024-01.md:2",
      "reviews/week_2024-W10.md:2",
    ]);
  });

  it("as of a time without decay: everything written up to then, nothing after", () => {
    expect(where(recall(dir, "oversold", { asOf, decay: false, limit: 100 }))).toEqual([
      "journal/2024-03-08.md:3",
      "journal/2024-03-10.md:3",
      "journal/2024-03-11.md:3",
      "journal/2024-03-15.md:3",
      "notes/experience.md:1",
      "notes/position_AAPL.md:2",
      "playbook.md:1",
      "playbook.md:7",
      "reviews/month_2024-01.md:2",
      "reviews/month_2024-02.md:2",
      "reviews/week_2024-W01.md:2",
      "reviews/week_2024-W10.md:2",
    ]);
  });

  it("without asOf: all of the run's memory (the user's view)", () => {
    const found = where(recall(dir, "oversold", { limit: 100 }));
    expect(found).toHaveLength(17);
    expect(found).toContain("journal/2024-03-15.md:4");
    expect(found).toContain("journal/2024-03-18.md:3");
    expect(found).toContain("playbook.md:8");
    expect(found).toContain("notes/later.md:2");
    expect(found).toContain("reviews/month_2024-03.md:2");
  });

  it("cites the exact lines and source of each hit", () => {
    const [hit] = recall(dir, "morning", { asOf });
    expect(hit).toEqual({
      path: "journal/2024-03-15.md",
      startLine: 3,
      endLine: 3,
      snippet: "[10:00] oversold morning",
      score: 0.8667,
      source: "journal",
    });
    expect(recall(dir, "afternoon", { asOf })).toEqual([]);
    expect(recall(dir, "entry", { asOf })[0]).toMatchObject({
      path: "notes/position_AAPL.md",
      snippet: "oversold entry",
      source: "note",
    });
    expect(recall(dir, "january", { asOf })[0]?.source).toBe("review");
    expect(recall(dir, "earnings", { asOf })[0]).toMatchObject({
      path: "playbook.md",
      startLine: 7,
      endLine: 7,
      source: "playbook",
    });
  });

  it("returns at most `limit` citations, ties ordered by path", () => {
    expect(where(recall(dir, "oversold", { asOf, limit: 2 }))).toEqual([
      "journal/2024-03-11.md:3",
      "journal/2024-03-15.md:3",
    ]);
    expect(recall(dir, "oversold", { asOf })).toHaveLength(5);
  });
});

describe("recall scoring", () => {
  beforeEach(() => {
    ws.note(
      "mix",
      "# RSI and earnings\nRSI fell before earnings.\n\n# RSI only\nRSI RSI RSI RSI\n\n# Persistent\npersistent buying\n",
      at("2024-03-01T10:00"),
    );
  });

  it("ranks covering more terms above repeating one", () => {
    const hits = recall(dir, "RSI earnings", {});
    expect(hits.map((h) => [h.startLine, h.endLine, h.score])).toEqual([
      // rsi 2 hits, earnings 2 hits: (0.8*4 + 0.2*(2*2/3 + 2*2/3)) / 4
      [2, 3, 0.9333],
      // rsi 5 hits, capped at 3: (0.8*2 + 0.2*2) / 4
      [5, 6, 0.5],
    ]);
    expect(hits[0]?.snippet).toBe("# RSI and earnings\nRSI fell before earnings.");
  });

  it("matches words at their start only, and ignores stop words and empty queries", () => {
    expect(recall(dir, "buy", {}).map((h) => [h.path, h.startLine, h.score])).toEqual([
      ["notes/mix.md", 8, 0.8667],
      ["playbook.md", 1, 0.8667],
    ]);
    expect(recall(dir, "sist", {})).toEqual([]);
    expect(recall(dir, "the", {})).toEqual([]);
    expect(recall(dir, "  ", {})).toEqual([]);
    expect(recall(dir, "rsi", { limit: 0 })).toEqual([]);
  });

  it("finds CJK text by characters and bigrams, and full-width letters", () => {
    ws.log("买入 AAPL 因 RSI=25, 最终止损出局", at("2024-02-20T10:00"));
    // 止, 损, 止损 all present: (0.8*4 + 0.2*4/3) / 4
    expect(recall(dir, "止损", {}).map((h) => [h.path, h.score])).toEqual([
      ["journal/2024-02-20.md", 0.8667],
    ]);
    // only 止 of 止, 盈, 止盈: (0.8*1 + 0.2*1/3) / 4
    expect(recall(dir, "止盈", {}).map((h) => h.score)).toEqual([0.2167]);
    expect(recall(dir, "ＡＡＰＬ", {}).map((h) => h.path)).toEqual(["journal/2024-02-20.md"]);
  });

  it("cuts long stretches without headings into blocks of 20 lines", () => {
    const lines = Array.from({ length: 45 }, (_, i) => (i === 0 || i === 44 ? "needle" : "hay"));
    ws.note("long", lines.join("\n"), at("2024-03-01T10:00"));
    expect(
      recall(dir, "needle", {}).map((h) => [h.path, h.startLine, h.endLine, h.snippet.length]),
    ).toEqual([
      ["notes/long.md", 2, 21, "needle".length + 19 * "\nhay".length],
      ["notes/long.md", 42, 46, 4 * "hay\n".length + "needle".length],
    ]);
  });
});
