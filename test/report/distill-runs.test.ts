import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { reachesPast } from "../../src/memory/persistent/look-ahead.js";
import { PersistentStore } from "../../src/memory/persistent/persistent-store.js";
import {
  DISTILL_SYSTEM_PROMPT,
  distillPrompt,
  readDistillAnswer,
} from "../../src/report/distill-model.js";
import {
  distillRuns,
  periodUnion,
  playbookLessons,
  readSources,
  unionText,
} from "../../src/report/distill-runs.js";
import { finishedRunDir, utc } from "../helpers/finished-run.js";

const work = fs.mkdtempSync(path.join(os.tmpdir(), "agenticbt-distill-"));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const runsRoot = path.join(work, ".agenticbt", "runs");

const runDir = (
  id: string,
  period: { start: string; end: string },
  lessons: string[],
  reviews: Record<string, string> = {},
) => finishedRunDir(runsRoot, id, period, lessons, reviews);

describe("memory distill", () => {
  const a = runDir(
    "run-a",
    { start: "2020-01-02", end: "2020-03-31" },
    ["Cut losses at 2 percent.", "Earnings weeks break RSI signals."],
    { "month_2020-03": "March: choppy, two stops hit.", "week_2020-W10": "A quiet week." },
  );
  const b = runDir("run-b", { start: "2020-04-01", end: "2020-06-30" }, [
    "cut  losses at 2 PERCENT.",
    "Gaps above the prior high fade by noon.",
  ]);

  it("reads a playbook's lessons: bullets without their stamps, continuation lines kept", () => {
    const text =
      "# M\n\n## Lessons\n\n- [2020-01-02 10:00] One\n  more of one\n- [2020-01-03 10:00] Two\n- [2020-01-04 10:00] One\n  more of one\n\n## After\n- not a lesson\n";
    expect(playbookLessons(text)).toEqual(["One\nmore of one", "Two"]);
    expect(playbookLessons("# M\n\nno lessons\n")).toEqual([]);
  });

  it("keeps the lessons the runs share (--min-runs 2) with the hull of their periods", () => {
    const out = distillRuns([b, a], {
      namespace: "shared",
      runsRoot,
      minRuns: 2,
      reviews: "none",
    });
    // 3 distinct lessons (the first of each run is one, folded), 1 learned by both.
    expect(out.entries).toHaveLength(1);
    expect(out.lessonsBelowMinRuns).toBe(2);
    const [e] = out.entries;
    expect(e?.runs).toEqual(["run-a", "run-b"]);
    expect(e?.period).toBe("2020-01-02 00:00 .. 2020-06-30 00:00");
    const store = PersistentStore.readOnly(path.join(work, ".agenticbt", "memory", "shared"));
    const [entry] = store.entries();
    expect(entry?.fields.body).toContain("Cut losses at 2 percent.");
    expect(entry?.fields.body).toContain("Learned in 2 of 2 distilled runs");
    expect(entry?.fields.provenance).toEqual({
      runId: "run-a+run-b",
      periodStart: utc("2020-01-02"),
      periodEnd: utc("2020-06-30"),
      writtenAt: utc("2020-06-30"),
    });
    // The guard: hidden from a run starting on 2020-06-29 (before the period ends), seen from
    // one starting on 2020-06-30 or later.
    expect(reachesPast(entry!, utc("2020-06-29"), "later")).toBe(true);
    expect(reachesPast(entry!, utc("2020-06-30"), "later")).toBe(false);
    expect(reachesPast(entry!, utc("2020-07-01"), "later")).toBe(false);
  });

  it("with --min-runs 1 every lesson and the monthly reviews, each dated by its own run", () => {
    const out = distillRuns([a, b], { namespace: "all", runsRoot, minRuns: 1, reviews: "month" });
    expect(out.entries.filter((e) => e.kind === "lesson")).toHaveLength(3);
    const reviews = out.entries.filter((e) => e.kind === "review");
    expect(reviews.map((e) => e.title)).toEqual(["Review month_2020-03 run-a"]);
    const store = PersistentStore.readOnly(path.join(work, ".agenticbt", "memory", "all"));
    const byFile = new Map(store.entries().map((x) => [x.file, x]));
    const review = byFile.get(reviews[0]!.file)!;
    expect(review.fields.type).toBe("market");
    expect(review.fields.body).toBe("March: choppy, two stops hit.");
    // The earnings lesson is run-a's alone (ends 2020-03-31): a run starting 2020-04-01 sees it;
    // the gap lesson is run-b's (ends 2020-06-30): hidden from that run.
    const lesson = (word: string) =>
      store.entries().find((x) => x.fields.type === "lesson" && x.fields.body.includes(word))!;
    const start = utc("2020-04-01");
    expect(reachesPast(lesson("Earnings"), start, "next")).toBe(false);
    expect(reachesPast(lesson("Gaps"), start, "next")).toBe(true);
    expect(reachesPast(review, start, "next")).toBe(false);
    // The shared lesson is dated by both runs: hidden until 2020-06-30.
    expect(reachesPast(lesson("Cut losses"), start, "next")).toBe(true);
    // Distilling again rewrites the same files: same entries, no duplicates.
    const again = distillRuns([a, b], { namespace: "all", runsRoot, minRuns: 1, reviews: "all" });
    expect(again.entries.map((e) => e.file)).toEqual(
      expect.arrayContaining(out.entries.map((e) => e.file)),
    );
    expect(PersistentStore.readOnly(store.dir).entries()).toHaveLength(5);
  });

  it("refuses a running run and a bad namespace", () => {
    const c = runDir("run-c", { start: "2020-01-02", end: "2020-01-31" }, ["x"]);
    const result = JSON.parse(fs.readFileSync(path.join(c, "result.json"), "utf8"));
    fs.writeFileSync(path.join(c, "result.json"), JSON.stringify({ ...result, status: "running" }));
    const o = { namespace: "n", runsRoot, minRuns: 1, reviews: "none" } as const;
    expect(() => distillRuns([c], o)).toThrow(/still running/);
    expect(() => distillRuns([a], { ...o, namespace: "../x" })).toThrow(
      /Invalid --memory-namespace/,
    );
  });
});

describe("memory distill --model: the pure parts", () => {
  it("takes the union of periods: overlapping or touching ones merge, a gap keeps two", () => {
    const p = (start: string, end: string) => ({ start: utc(start), end: utc(end) });
    // Jan–Mar, Feb–May and Apr–Jun chain into one stretch (each overlaps the one before it);
    // Aug–Sep stands apart.
    expect(
      periodUnion([
        p("2020-08-03", "2020-09-30"),
        p("2020-01-02", "2020-03-31"),
        p("2020-02-03", "2020-05-29"),
        p("2020-04-01", "2020-06-30"),
      ]),
    ).toEqual([p("2020-01-02", "2020-06-30"), p("2020-08-03", "2020-09-30")]);
    // Sharing an instant merges; a day apart does not (the bar interval is not known).
    expect(periodUnion([p("2020-01-02", "2020-03-31"), p("2020-03-31", "2020-04-30")])).toEqual([
      p("2020-01-02", "2020-04-30"),
    ]);
    expect(periodUnion([p("2020-01-02", "2020-03-31"), p("2020-04-01", "2020-06-30")])).toEqual([
      p("2020-01-02", "2020-03-31"),
      p("2020-04-01", "2020-06-30"),
    ]);
    expect(unionText([p("2020-04-01", "2020-06-30"), p("2020-01-02", "2020-03-31")])).toBe(
      "2020-01-02 00:00 .. 2020-03-31 00:00 + 2020-04-01 00:00 .. 2020-06-30 00:00",
    );
    expect(periodUnion([])).toEqual([]);
  });

  it("shows the model every run with its period, lessons and the selected reviews", () => {
    const x = runDir(
      "run-x",
      { start: "2021-01-04", end: "2021-02-26" },
      ["Two lines\n  of one lesson"],
      { "month_2021-01": "January: trend.", "week_2021-W02": "Quiet." },
    );
    const y = runDir("run-y", { start: "2021-03-01", end: "2021-03-31" }, []);
    const runs = readSources([y, x], { namespace: "p", runsRoot, minRuns: 2, reviews: "month" });
    expect(distillPrompt(runs, { minRuns: 2, reviews: "month" })).toBe(
      [
        "2 run(s). Each entry must draw on at least 2 run(s).",
        "## Run run-x\nPeriod: 2021-01-04 00:00 .. 2021-02-26 00:00",
        "### Lessons\n- Two lines\n  of one lesson",
        "### Reviews\n#### month_2021-01\nJanuary: trend.",
        "## Run run-y\nPeriod: 2021-03-01 00:00 .. 2021-03-31 00:00",
        "### Lessons\n(none)",
        "### Reviews\n(none)",
      ].join("\n\n"),
    );
    expect(distillPrompt(runs, { minRuns: 1, reviews: "none" })).not.toContain("Reviews");
    expect(DISTILL_SYSTEM_PROMPT).toContain('"runs"');
  });

  it("reads the answer: JSON in or out of a fence; refuses bad JSON, unknown runs, twin titles", () => {
    const ids = ["run-a", "run-b"];
    const good = { entries: [{ title: " Stops ", text: "Cut at 2%.", runs: ["run-b"] }] };
    expect(readDistillAnswer(JSON.stringify(good), ids)).toEqual({
      entries: [{ title: "Stops", text: "Cut at 2%.", runs: ["run-b"] }],
    });
    expect(readDistillAnswer(`Here:\n\`\`\`json\n${JSON.stringify(good)}\n\`\`\``, ids)).toEqual(
      readDistillAnswer(JSON.stringify(good), ids),
    );
    expect(readDistillAnswer("{entries: []}", ids)).toBe("it is not valid JSON");
    expect(readDistillAnswer('{"entries": [{"title": "t", "runs": ["run-a"]}]}', ids)).toMatch(
      /^it does not have the asked form at entries\.0\.text/,
    );
    const unknown = { entries: [{ title: "t", text: "x", runs: ["run-a", "run-z"] }] };
    expect(readDistillAnswer(JSON.stringify(unknown), ids)).toBe(
      'entry 1 names unknown run(s) "run-z"; the runs are run-a, run-b',
    );
    const twins = {
      entries: [
        { title: "Stops!", text: "x", runs: ["run-a"] },
        { title: "stops", text: "y", runs: ["run-b"] },
      ],
    };
    expect(readDistillAnswer(JSON.stringify(twins), ids)).toBe(
      "entry 2 repeats the title of an earlier entry",
    );
  });
});
