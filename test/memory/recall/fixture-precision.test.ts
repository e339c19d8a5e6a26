import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRecallIndex, type RecallIndex } from "../../../src/memory/recall/index.js";
import { citedLines, copyFixture, tempDir, where } from "./recall-test-kit.js";

// Chunks a reader of the fixture would call relevant to each query (path:startLine).
const RELEVANT: Record<string, { match: RegExp; chunks: string[] }> = {
  "stop loss": {
    match: /stop/i,
    chunks: [
      "notes/risk_rules.md:4",
      "playbook.md:11",
      "playbook.md:30",
      "journal/2024-01-09.md:4",
      "journal/2024-02-08.md:3",
      "journal/2024-02-13.md:3",
      "journal/2024-03-05.md:3",
      "journal/2024-03-07.md:3",
      "reviews/week_2024-W02.md:2",
      "reviews/week_2024-W10.md:2",
      "reviews/month_2024-03.md:2",
    ],
  },
  止损: {
    match: /止损/,
    chunks: [
      "journal/2024-01-16.md:3",
      "journal/2024-02-06.md:4",
      "journal/2024-03-12.md:3",
      "playbook.md:11",
      "playbook.md:33",
      "notes/risk_rules.md:9",
      "reviews/week_2024-W03.md:2",
      "reviews/week_2024-W11.md:2",
    ],
  },
  仓位: {
    match: /仓位/,
    chunks: [
      "notes/risk_rules.md:9",
      "journal/2024-01-10.md:3",
      "journal/2024-02-06.md:3",
      "journal/2024-02-27.md:3",
      "journal/2024-03-14.md:3",
      "playbook.md:17",
      "playbook.md:32",
      "reviews/week_2024-W03.md:2",
      "reviews/week_2024-W11.md:2",
    ],
  },
  "earnings gap": {
    match: /earnings gap/i,
    chunks: [
      "journal/2024-01-25.md:3",
      "journal/2024-01-31.md:3",
      "journal/2024-02-22.md:3",
      "journal/2024-02-23.md:3",
      "journal/2024-03-12.md:4",
      "journal/2024-03-21.md:3",
      "playbook.md:23",
      "playbook.md:31",
      "reviews/week_2024-W05.md:2",
      "reviews/week_2024-W08.md:2",
      "reviews/month_2024-02.md:2",
      "notes/position_NVDA.md:2",
    ],
  },
};

let tmp: ReturnType<typeof tempDir>;
let run: string;
let index: RecallIndex;

beforeAll(() => {
  tmp = tempDir();
  run = copyFixture(tmp.dir);
  index = openRecallIndex(run);
});
afterAll(() => {
  index.close();
  tmp.cleanup();
});

describe("recall over the fixture run (user's view)", () => {
  it.each(Object.keys(RELEVANT))("precision@3 is 1 for %s", (query) => {
    const top = where(index.searchSync(query, { limit: 3 }));
    expect(top).toHaveLength(3);
    expect(top.filter((hit) => RELEVANT[query]!.chunks.includes(hit))).toEqual(top);
  });

  it.each(Object.keys(RELEVANT))("cites lines that contain the match for %s", (query) => {
    for (const c of index.searchSync(query, { limit: 3 })) {
      const lines = citedLines(run, c.path, c.startLine, c.endLine);
      expect(lines).toMatch(RELEVANT[query]!.match);
      expect(lines).toContain(c.snippet);
      expect(c.snippet.length).toBeLessThanOrEqual(300);
      expect(c.score).toBeGreaterThan(0);
      expect(c.score).toBeLessThan(1);
    }
  });

  it("labels sources and cites single journal entries exactly", () => {
    const [hit] = index.searchSync("茅台 止损 出局 干脆", { limit: 1 });
    expect(hit).toMatchObject({
      path: "journal/2024-01-16.md",
      startLine: 3,
      endLine: 3,
      source: "journal",
      snippet:
        "[14:50] 茅台跌破止损位 1600，按计划止损出局，亏损约 3%。止损执行得很干脆，没有犹豫。",
    });
    const sources = new Set(index.searchSync("stop", { limit: 50 }).map((c) => c.source));
    expect([...sources].sort()).toEqual(["journal", "note", "playbook", "review"]);
  });

  it("matches a two-character Chinese word as a word, not only its characters", () => {
    // 止盈 shares 止 with many 止损 chunks, but only one chunk has the word itself.
    const [hit] = index.searchSync("止盈", { limit: 1 });
    expect(hit?.path).toBe("journal/2024-02-15.md");
  });

  it("returns nothing for stop words only or an empty query, and honours limit", () => {
    expect(index.searchSync("the of and", {})).toEqual([]);
    expect(index.searchSync("   ", {})).toEqual([]);
    expect(index.searchSync("stop", { limit: 0 })).toEqual([]);
    expect(index.searchSync("stop", {})).toHaveLength(5);
  });
});
