import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isoWeekKey } from "../../../src/engine/calendar.js";
import { openRecallIndex, type RecallIndex } from "../../../src/memory/recall/index.js";
import { DAY_MS, dayKey } from "../../../src/memory/sim-time.js";
import { MemoryWorkspace } from "../../../src/memory/workspace.js";
import { at, tempDir } from "./recall-test-kit.js";

let tmp: ReturnType<typeof tempDir>;
let index: RecallIndex;

// Trading days 2012-04-02 … 2012-06-15: weekdays, except 2012-05-28 (Memorial Day) and, to show
// that the journal tier counts trading days and not calendar days, 2012-06-13.
const HOLIDAYS = new Set(["2012-05-28", "2012-06-13"]);
const tradingDays: number[] = [];
for (let t = at("2012-04-02T00:00"); t <= at("2012-06-15T00:00"); t += DAY_MS) {
  const weekday = new Date(t).getUTCDay();
  if (weekday !== 0 && weekday !== 6 && !HOLIDAYS.has(dayKey(t))) tradingDays.push(t);
}

// A daily run's memory: a journal entry every trading day, a weekly review every Friday evening,
// a monthly review on the month's last trading day, a note and a playbook lesson.
beforeEach(() => {
  tmp = tempDir();
  const dir = path.join(tmp.dir, "run");
  const ws = new MemoryWorkspace({ dir, runId: "r1" });
  ws.init("# Manual\n\nTrade pullbacks.\n");
  ws.note("playbook", "pullbacks fail after gaps", at("2012-04-20T00:00"));
  ws.note("risk", "stop at 3 percent", at("2012-04-03T00:00"));
  for (const t of tradingDays) {
    ws.log(`pullback day ${dayKey(t)}`, t);
    if (new Date(t).getUTCDay() === 5) {
      ws.review("week", isoWeekKey(t), `pullback week ${isoWeekKey(t)}`, t + 18 * 3_600_000);
    }
  }
  ws.review("month", "2012-04", "pullback april", at("2012-04-30T18:00"));
  ws.review("month", "2012-05", "pullback may", at("2012-05-31T18:00"));
  index = openRecallIndex(dir);
  index.setTradingDays(tradingDays);
});
afterEach(() => {
  index.close();
  tmp.cleanup();
});

describe("decay tiers follow the calendar (no gap)", () => {
  it("as of 2012-06-15: 5 trading days of journals, weeks after May, the monthly reviews", () => {
    expect(index.eligiblePaths({ asOf: at("2012-06-15T00:00") })).toEqual([
      "journal/2012-06-08.md",
      "journal/2012-06-11.md",
      "journal/2012-06-12.md",
      "journal/2012-06-14.md",
      "journal/2012-06-15.md",
      "notes/risk.md",
      "playbook.md",
      "reviews/month_2012-04.md",
      "reviews/month_2012-05.md",
      // W22 runs 2012-05-28 … 06-03, so June (no monthly review yet) keeps it; W24 is not written.
      "reviews/week_2012-W22.md",
      "reviews/week_2012-W23.md",
    ]);
  });

  it("as of 2012-05-15: April's review covers its weeks, May's weeks stay", () => {
    expect(index.eligiblePaths({ asOf: at("2012-05-15T00:00") })).toEqual([
      "journal/2012-05-09.md",
      "journal/2012-05-10.md",
      "journal/2012-05-11.md",
      "journal/2012-05-14.md",
      "journal/2012-05-15.md",
      "notes/risk.md",
      "playbook.md",
      "reviews/month_2012-04.md",
      // W18 runs 2012-04-30 … 05-06: its May days are not covered by a monthly review.
      "reviews/week_2012-W18.md",
      "reviews/week_2012-W19.md",
    ]);
  });

  it("the memory policy's recent_days sets the journal window in trading days", () => {
    const journals = (journalDays: number) =>
      index
        .eligiblePaths({ asOf: at("2012-06-15T00:00"), journalDays })
        .filter((p) => p.startsWith("journal/"));
    // 2012-06-13 is not a trading day: two trading days back from the 15th are the 14th and 15th.
    expect(journals(2)).toEqual(["journal/2012-06-14.md", "journal/2012-06-15.md"]);
    expect(journals(3)).toEqual([
      "journal/2012-06-12.md",
      "journal/2012-06-14.md",
      "journal/2012-06-15.md",
    ]);
    expect(() => journals(0)).toThrow(/journalDays must be a whole number of days >= 1/);
  });

  it("every past trading day stays reachable through some eligible file", () => {
    for (const asOf of [at("2012-05-15T00:00"), at("2012-06-01T00:00"), at("2012-06-15T00:00")]) {
      const eligible = index.eligiblePaths({ asOf });
      for (const day of tradingDays.filter((t) => t <= asOf)) {
        const covered =
          eligible.includes(`journal/${dayKey(day)}.md`) ||
          eligible.includes(`reviews/week_${isoWeekKey(day)}.md`) ||
          eligible.includes(`reviews/month_${dayKey(day).slice(0, 7)}.md`);
        expect(covered, `${dayKey(day)} as of ${dayKey(asOf)}`).toBe(true);
      }
    }
  });

  it("without trading days, the journal tier counts the days that have journals", () => {
    const fresh = openRecallIndex(index.runDir, { file: path.join(tmp.dir, "other.sqlite") });
    try {
      const journals = fresh
        .eligiblePaths({ asOf: at("2012-06-15T00:00") })
        .filter((p) => p.startsWith("journal/"));
      expect(journals).toEqual([
        "journal/2012-06-08.md",
        "journal/2012-06-11.md",
        "journal/2012-06-12.md",
        "journal/2012-06-14.md",
        "journal/2012-06-15.md",
      ]);
    } finally {
      fresh.close();
    }
  });
});
