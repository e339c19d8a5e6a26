import { describe, expect, it } from "vitest";
import { newLessons } from "../../../src/memory/systems/files-system.js";
import {
  compressPlaybook,
  lessonKey,
  playbookLessons,
} from "../../../src/memory/systems/playbook-compress.js";

const HEAD = "# Playbook\n\nTrade the trend.\n\n## Lessons\n";
const lesson = (day: string, text: string) => `- [1999-11-${day} 00:00] ${text}`;
const book = (...lessons: string[]) => `${HEAD}\n${lessons.join("\n")}\n`;

describe("playbook compression", () => {
  it("merges duplicate lessons (stamp, case and spacing aside), keeping the first", () => {
    const text = book(
      lesson("01", "Cut losers fast."),
      lesson("02", "Let winners run."),
      lesson("03", "cut  losers FAST"),
      lesson("04", "Let winners run."),
    );
    const c = compressPlaybook(text, 10_000);
    expect(c).toEqual({
      text: book(lesson("01", "Cut losers fast."), lesson("02", "Let winners run.")),
      merged: 2,
      dropped: 0,
    });
    const keys = playbookLessons(c.text).map((l) => lessonKey(l.split("\n")));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("then drops the oldest lessons until the playbook fits the threshold", () => {
    // HEAD is 11 + 1 + 17 + 1 + 11 = 41 characters; with the blank line, each 37-character lesson adds 38.
    const three = book(
      lesson("01", "Cut losers fast."),
      lesson("02", "Let winners run."),
      lesson("03", "Size by the ATR!"),
    );
    expect(HEAD.length).toBe(41);
    expect(three.length).toBe(41 + 1 + 3 * 38);
    // 41 + 1 + 2 * 38 = 118 fits 118, not 117.
    expect(compressPlaybook(three, 118)).toMatchObject({ merged: 0, dropped: 1 });
    expect(compressPlaybook(three, 118).text).toBe(
      book(lesson("02", "Let winners run."), lesson("03", "Size by the ATR!")),
    );
    expect(compressPlaybook(three, 117)).toMatchObject({ merged: 0, dropped: 2 });
    // Never the manual: with every lesson dropped, the head stays.
    expect(compressPlaybook(three, 1).text).toBe(HEAD);
  });

  it("keeps multi-line lessons whole and later sections in place; no lessons: unchanged", () => {
    const text = `${HEAD}\n${lesson("01", "A")}\n  more of A\n${lesson("02", "A")}\n  more of A\n\n## Later\n\nkept\n`;
    expect(compressPlaybook(text, 10_000).text).toBe(
      `${HEAD}\n${lesson("01", "A")}\n  more of A\n\n## Later\n\nkept\n`,
    );
    const plain = "# Playbook\n\nno lessons yet\n";
    expect(compressPlaybook(plain, 1)).toEqual({ text: plain, merged: 0, dropped: 0 });
  });

  it("lessons added since the frozen playbook are the new ones, duplicates counted", () => {
    const frozen = book(lesson("01", "A"));
    const now = book(lesson("01", "A"), lesson("02", "B"), lesson("03", "A"));
    expect(newLessons(frozen, now)).toEqual([lesson("02", "B"), lesson("03", "A")]);
    expect(newLessons(now, now)).toEqual([]);
  });
});
