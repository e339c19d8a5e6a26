import { describe, expect, it } from "vitest";
import {
  modelCompressed,
  playbookCompressRequest,
  playbookLessons,
} from "../../../src/memory/systems/playbook-compress.js";

const BOOK = [
  "# Playbook",
  "",
  "Manual text the model never rewrites.",
  "",
  "## Lessons",
  "",
  "- [2024-01-02 00:00] Cut losers fast.",
  "- [2024-01-03 00:00] Let winners run.",
  "- [2024-01-04 00:00] cut losers FAST",
  "",
  "## Later",
  "",
  "Kept as it is.",
  "",
].join("\n");

describe("the model's playbook compression is checked", () => {
  it("sends the lessons only, and keeps the manual and later sections around the answer", () => {
    const request = playbookCompressRequest(BOOK, 10_000);
    expect(request?.[1]?.content).toBe(playbookLessons(BOOK).join("\n"));
    const c = modelCompressed(
      BOOK,
      "```\n- [2024-01-02 00:00] Cut losers fast, always.\n- [2024-01-03 00:00] Let winners run.\n```",
      10_000,
    );
    expect(c).toEqual({
      text: BOOK.replace(
        "- [2024-01-02 00:00] Cut losers fast.\n- [2024-01-03 00:00] Let winners run.\n- [2024-01-04 00:00] cut losers FAST\n",
        "- [2024-01-02 00:00] Cut losers fast, always.\n- [2024-01-03 00:00] Let winners run.\n",
      ),
      merged: 1,
      dropped: 0,
    });
  });

  it("refuses a duplicate, an invented stamp, text that is not a lesson, or more lessons", () => {
    const one = "- [2024-01-02 00:00] Cut losers fast.";
    expect(
      modelCompressed(BOOK, `${one}\n- [2024-01-04 00:00] Cut losers fast`, 10_000),
    ).toBeNull();
    expect(
      modelCompressed(BOOK, "- [2025-06-01 00:00] A lesson from the future.", 10_000),
    ).toBeNull();
    expect(modelCompressed(BOOK, `Here is the playbook:\n${one}`, 10_000)).toBeNull();
    expect(modelCompressed(BOOK, "", 10_000)).toBeNull();
    const four = [
      one,
      "- [2024-01-03 00:00] b",
      "- [2024-01-04 00:00] c",
      "- [2024-01-04 00:00] d",
    ].join("\n");
    expect(modelCompressed(BOOK, four, 10_000)).toBeNull();
  });

  it("drops the oldest lessons past the threshold, as the rule does", () => {
    const answer = "- [2024-01-02 00:00] Cut losers fast.\n- [2024-01-03 00:00] Let winners run.";
    const whole = modelCompressed(BOOK, answer, 10_000);
    const c = modelCompressed(BOOK, answer, (whole?.text.length ?? 0) - 1);
    expect(c?.dropped).toBe(1);
    expect(playbookLessons(c?.text ?? "")).toEqual(["- [2024-01-03 00:00] Let winners run."]);
  });
});
