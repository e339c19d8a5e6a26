import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  openRecallIndex,
  type RecallIndex,
  RecallInputError,
} from "../../../src/memory/recall/index.js";
import { MemoryWorkspace } from "../../../src/memory/workspace.js";
import { at, tempDir, where } from "./recall-test-kit.js";

let tmp: ReturnType<typeof tempDir>;
let dir: string;
let index: RecallIndex;
const asOf = at("2024-03-15T12:00");
const sorted = (xs: string[]) => [...xs].sort();

// One run's memory over two months: journals, reviews, notes, playbook lessons, and later writes.
beforeEach(() => {
  tmp = tempDir();
  dir = path.join(tmp.dir, "run");
  const ws = new MemoryWorkspace({ dir, runId: "r1" });
  ws.init("# Manual\n\nBuy oversold dips.\n");
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
  const preset = path.join(tmp.dir, "experience.md");
  fs.writeFileSync(preset, "oversold preset\n");
  ws.seedPreset("notes/experience.md", preset);
  index = openRecallIndex(dir);
});
afterEach(() => {
  index.close();
  tmp.cleanup();
});

const found = (opts: Parameters<RecallIndex["searchSync"]>[1]) =>
  sorted(where(index.searchSync("oversold", { limit: 100, ...opts })));

describe("as-of recall with decay tiers", () => {
  it("keeps 5 journal days, weeks no monthly review covers, monthly reviews, notes, playbook", () => {
    // No trading days given: the days with a journal up to 03-15 (4 of them) stand in. W01 lies
    // in January, which has its monthly review; W10 in March, whose review is not written yet.
    expect(found({ asOf })).toEqual([
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
      "reviews/week_2024-W10.md:2",
    ]);
  });

  it("counts trading days: a journal 5 trading days back is dropped, 4 back kept", () => {
    const weekdays: number[] = [];
    for (let d = 1; d <= 18; d++) {
      const t = Date.UTC(2024, 2, d);
      if (![0, 6].includes(new Date(t).getUTCDay())) weekdays.push(t);
    }
    index.setTradingDays(weekdays);
    // 03-15 is a Friday: its 5 trading days are 03-11 … 03-15; 03-10 is a Sunday, 03-08 before.
    const days = found({ asOf }).filter((w) => w.startsWith("journal/"));
    expect(days).toEqual(["journal/2024-03-11.md:3", "journal/2024-03-15.md:3"]);
  });

  it("drops a weekly review once a monthly review covers its week", () => {
    expect(found({ asOf })).toContain("reviews/week_2024-W10.md:2");
    const april = found({ asOf: at("2024-04-10T12:00") });
    expect(april).toContain("reviews/month_2024-03.md:2");
    expect(april).not.toContain("reviews/week_2024-W10.md:2");
  });

  it("without decay returns everything written up to as-of and nothing after", () => {
    expect(found({ asOf, decay: false })).toEqual([
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

  it("never returns an entry written later the same day, a later lesson or later file", () => {
    const later = ["afternoon", "future", "late", "later", "march"];
    for (const word of later) {
      expect(index.searchSync(word, { asOf, decay: false, limit: 50 })).toEqual([]);
      expect(index.searchSync(word, { limit: 50 }).length).toBeGreaterThan(0);
    }
  });

  it("without as-of searches all memory with no decay (the user's view)", () => {
    const all = found({});
    expect(all).toHaveLength(17);
    expect(all).toContain("journal/2024-03-18.md:3");
    expect(all).toContain("playbook.md:8");
  });
});

describe("half-life decay", () => {
  it("multiplies by 0.5^(age/halfLife) and reorders by age; undated text does not decay", () => {
    const plain = index.searchSync("oversold", { asOf, decay: false, limit: 100 });
    const halved = index.searchSync("oversold", {
      asOf,
      decay: false,
      halfLifeDays: 7,
      limit: 100,
    });
    const score = (cs: typeof plain, w: string) =>
      cs.find((c) => `${c.path}:${c.startLine}` === w)!.score;
    // Journal 2024-03-08 10:00 is 7 days 2 hours old at 03-15 12:00.
    const age = (at("2024-03-15T12:00") - at("2024-03-08T10:00")) / 86_400_000;
    const ratio =
      score(halved, "journal/2024-03-08.md:3") / score(plain, "journal/2024-03-08.md:3");
    expect(ratio).toBeCloseTo(0.5 ** (age / 7), 12);
    expect(score(halved, "notes/experience.md:1")).toBe(score(plain, "notes/experience.md:1"));
    const journals = where(halved).filter((w) => w.startsWith("journal/"));
    expect(journals).toEqual([
      "journal/2024-03-15.md:3",
      "journal/2024-03-11.md:3",
      "journal/2024-03-10.md:3",
      "journal/2024-03-08.md:3",
    ]);
  });

  it("refuses a half-life without as-of, and nonsense values", () => {
    expect(() => index.searchSync("oversold", { halfLifeDays: 7 })).toThrow(RecallInputError);
    expect(() => index.searchSync("oversold", { asOf, halfLifeDays: 0 })).toThrow(/positive/);
  });
});
