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
  it("keeps recent journals, weekly reviews <= 31 days, older monthly ones, notes, playbook", () => {
    expect(found({ asOf })).toEqual([
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

  it("drops a journal exactly five calendar days back, keeps four", () => {
    const days = found({ asOf }).filter((w) => w.startsWith("journal/"));
    expect(days).not.toContain("journal/2024-03-10.md:3");
    expect(days).toContain("journal/2024-03-11.md:3");
  });

  it("moves a review between tiers as it ages past 31 days", () => {
    // On 03-15 the February review (15 days old) is covered by the weekly ones; on 04-10 it is
    // 41 days old and the week 10 review (03-08) 33 days: the monthly one takes over.
    expect(found({ asOf })).not.toContain("reviews/month_2024-02.md:2");
    const april = found({ asOf: at("2024-04-10T12:00") });
    expect(april).toContain("reviews/month_2024-02.md:2");
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
