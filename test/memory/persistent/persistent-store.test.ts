import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseEntry } from "../../../src/memory/persistent/entry-file.js";
import { reachesPast } from "../../../src/memory/persistent/look-ahead.js";
import { memoryRootFor, validateNamespace } from "../../../src/memory/persistent/namespace.js";
import { NamespaceError, RememberError } from "../../../src/memory/persistent/persistent-errors.js";
import { PersistentSession } from "../../../src/memory/persistent/persistent-session.js";
import {
  MAX_INDEX_LINES,
  PersistentStore,
  storeContentHash,
} from "../../../src/memory/persistent/persistent-store.js";
import { slugify } from "../../../src/memory/persistent/slug.js";
import { SymlinkError } from "../../../src/util/no-follow.js";
import { tempDir } from "../../helpers/cli.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function freshStore(ns = "default") {
  const work = tempDir();
  dirs.push(work);
  const root = path.join(work, ".agenticbt", "memory");
  return { root, dir: path.join(root, ns), store: PersistentStore.open(root, path.join(root, ns)) };
}

const day = (d: string) => Date.parse(`${d}T00:00:00Z`);
const prov = (runId: string, start: string, end: string, written: string) => ({
  runId,
  periodStart: day(start),
  periodEnd: day(end),
  writtenAt: day(written),
});

describe("slugs", () => {
  it("keep CJK characters and fold the rest to lower case with one _ per gap", () => {
    expect(slugify("止损 纪律!")).toBe("止损_纪律");
    expect(slugify("Stop-Loss Rule #1")).toBe("stop-loss_rule_1");
    expect(slugify("ＡＢＣ　決済")).toBe("abc_決済");
    expect([...slugify("长".repeat(80))].length).toBe(60);
  });

  it("refuse a title with nothing to name a file by", () => {
    expect(() => slugify("!!! ???")).toThrow(RememberError);
  });

  it("two Chinese titles become two files, not one overwritten file", () => {
    const { store, dir } = freshStore();
    store.save({ title: "止损纪律", content: "跌破均线就止损" }, null);
    store.save({ title: "仓位管理", content: "单笔不超过两成" }, null);
    expect(fs.readdirSync(dir).sort()).toEqual([
      "MEMORY.md",
      "lesson_仓位管理.md",
      "lesson_止损纪律.md",
    ]);
    const text = fs.readFileSync(path.join(dir, "lesson_止损纪律.md"), "utf8");
    expect(parseEntry(text, "lesson_止损纪律.md")).toMatchObject({
      name: "止损纪律",
      type: "lesson",
      body: "跌破均线就止损",
    });
  });
});

describe("entries and the index", () => {
  it("write frontmatter with the run, its simulated period and the write time", () => {
    const { store, dir } = freshStore();
    store.save(
      {
        title: "Gap fades",
        content: "Opening gaps on SPY faded.",
        type: "market",
        description: "gaps",
      },
      prov("run-1", "2020-01-02", "2020-03-31", "2020-02-10"),
    );
    expect(fs.readFileSync(path.join(dir, "market_gap_fades.md"), "utf8")).toBe(
      [
        "---",
        "name: Gap fades",
        "description: gaps",
        "type: market",
        "run: run-1",
        "period: 2020-01-02 00:00 .. 2020-03-31 00:00",
        "written: 2020-02-10 00:00",
        "---",
        "",
        "Opening gaps on SPY faded.",
        "",
      ].join("\n"),
    );
    expect(fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8")).toBe(
      "- [Gap fades](market_gap_fades.md) — gaps\n",
    );
  });

  it("freeze the index at open: a save reaches disk at once, the frozen text only on reopen", () => {
    const { store, root, dir } = freshStore();
    store.save({ title: "first", content: "one" }, null);
    expect(store.frozenIndex).toBe("");
    expect(store.currentIndex()).toBe("- [first](lesson_first.md)\n");
    expect(store.find("first", 5).map((h) => h.entry.file)).toEqual(["lesson_first.md"]);
    expect(PersistentStore.open(root, dir).frozenIndex).toBe("- [first](lesson_first.md)");
  });

  it("keep MEMORY.md to 200 lines; entries past the cap are still recalled", () => {
    const { root, dir } = freshStore();
    // 200 entries written as save() writes them (files and index lines), then one more save.
    const lines: string[] = [];
    for (let i = 1; i <= 200; i++) {
      fs.writeFileSync(
        path.join(dir, `lesson_note_${i}.md`),
        `---\nname: note ${i}\n---\n\nentry ${i}\n`,
      );
      lines.push(`- [note ${i}](lesson_note_${i}.md)`);
    }
    fs.writeFileSync(path.join(dir, "MEMORY.md"), `${lines.join("\n")}\n`);
    const store = PersistentStore.open(root, dir);
    store.save({ title: "note 201", content: "entry number 201" }, null);
    const index = fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8").trimEnd().split("\n");
    expect(index).toHaveLength(MAX_INDEX_LINES);
    expect(index[199]).toBe("- [note 200](lesson_note_200.md)");
    expect(store.find("201", 1)[0]?.entry.file).toBe("lesson_note_201.md");
    // A hand-edited index longer than the cap is frozen at its first 200 lines.
    fs.writeFileSync(
      path.join(dir, "MEMORY.md"),
      `${Array.from({ length: 250 }, (_, i) => `line ${i}`).join("\n")}\n`,
    );
    const frozen = PersistentStore.open(root, dir).frozenIndex.split("\n");
    expect(frozen).toHaveLength(200);
    expect(frozen[199]).toBe("line 199");
  });

  it("forget removes the entry (kept in backups/) and rebuilds the index; an unknown title is an error", () => {
    const { store, dir } = freshStore();
    store.save({ title: "a rule", content: "x" }, null);
    store.save({ title: "b rule", content: "y" }, null);
    expect(store.forget("a rule")).toEqual(["lesson_a_rule.md"]);
    expect(fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8")).toBe(
      "- [b rule](lesson_b_rule.md)\n",
    );
    expect(fs.existsSync(path.join(dir, "backups", "lesson_a_rule.1.md"))).toBe(true);
    expect(() => store.forget("a rule")).toThrow(/No memory is titled "a rule"/);
  });
});

describe("long-term compression (policy long_term_compress_char_threshold)", () => {
  it("backs MEMORY.md up, then drops descriptions, then keeps the newest lines that fit", () => {
    const { store, dir } = freshStore();
    store.save({ title: "alpha", content: "a", description: "first of three lessons" }, null);
    store.save({ title: "beta", content: "b", description: "second of three lessons" }, null);
    store.save({ title: "gamma", content: "c", description: "third of three lessons" }, null);
    const before = fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8");
    // "- [alpha](lesson_alpha.md) — first of three lessons" is 9 + 17 + 3 + 22 = 51 characters,
    // beta's 8 + 16 + 3 + 23 = 50, gamma's 9 + 17 + 3 + 22 = 51; with newlines 52 + 51 + 52.
    expect(before.length).toBe(155);
    expect(store.compressIndex(0, "x")).toBeNull();
    expect(store.compressIndex(155, "x")).toBeNull();
    // Without descriptions the lines are 26, 24 and 26 characters (+1 newline each): 27 + 25 +
    // 27 = 79 > 60, so only the newest two (25 + 27 = 52) fit.
    expect(store.compressIndex(60, "20240131")).toBe("backups/MEMORY.20240131.1.md");
    expect(fs.readFileSync(path.join(dir, "backups", "MEMORY.20240131.1.md"), "utf8")).toBe(before);
    expect(fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8")).toBe(
      "- [beta](lesson_beta.md)\n- [gamma](lesson_gamma.md)\n",
    );
    expect(store.find("alpha", 5)).toHaveLength(1);
  });
});

describe("token-overlap scoring (Vibe-Trading's: metadata ×2.0, body ×1.0)", () => {
  it("scores by hand-counted shared tokens and breaks ties by the newest write", () => {
    const { store } = freshStore();
    // query "stop loss rules" → {stop, loss, rule}
    // A: meta {stop, loss, discipline, cut, loser, early} ∩ q = 2 → 4; body {always, place, stop,
    //    atr, below, entry} ∩ q = 1 → 1; total 5.
    store.save(
      {
        title: "stop loss discipline",
        description: "cut losers early",
        content: "Always place a stop at 2 ATR below entry.",
      },
      prov("r", "2020-01-01", "2020-01-31", "2020-01-10"),
    );
    // B: meta {earning, week} ∩ q = 0; body {reduce, size, stop, loss, wider} ∩ q = 2 → 2.
    store.save(
      { title: "earnings", description: "earnings week", content: "Reduce size; stop loss wider." },
      prov("r", "2020-01-01", "2020-01-31", "2020-01-11"),
    );
    // C: same score as B (body only), written later → ranked before B.
    store.save(
      { title: "vol spike", description: "vix", content: "Stop loss hits cluster." },
      prov("r", "2020-01-01", "2020-01-31", "2020-01-12"),
    );
    const hits = store.find("stop loss rules", 5);
    expect(hits.map((h) => [h.entry.fields.name, h.score])).toEqual([
      ["stop loss discipline", 5],
      ["vol spike", 2],
      ["earnings", 2],
    ]);
    expect(store.find("stop loss rules", 1)).toHaveLength(1);
  });

  it("matches CJK by characters and pairs", () => {
    const { store } = freshStore();
    // q "止损" → {止, 损, 止损}: all three in the title (→ 6) and in the body (→ 3).
    store.save({ title: "止损纪律", content: "跌破均线就止损" }, null);
    store.save({ title: "仓位管理", content: "单笔不超过两成" }, null);
    expect(store.find("止损", 5).map((h) => [h.entry.file, h.score])).toEqual([
      ["lesson_止损纪律.md", 9],
    ]);
  });
});

describe("look-ahead guard", () => {
  it("flags entries of another run whose window ended after this run's start", () => {
    const { store, root, dir } = freshStore();
    store.save(
      { title: "late", content: "from a run ending in March" },
      prov("r1", "2020-01-01", "2020-03-31", "2020-03-30"),
    );
    store.save(
      { title: "early", content: "from a run ending in January" },
      prov("r2", "2019-12-01", "2020-01-31", "2020-01-30"),
    );
    store.save({ title: "handmade", content: "no provenance" }, null);
    const reopened = PersistentStore.open(root, dir);
    const byName = new Map(reopened.entries().map((e) => [e.fields.name, e]));
    const start = day("2020-02-03");
    expect(reachesPast(byName.get("late")!, start, "r3")).toBe(true);
    expect(reachesPast(byName.get("late")!, start, "r1")).toBe(false);
    expect(reachesPast(byName.get("early")!, start, "r3")).toBe(false);
    expect(reachesPast(byName.get("early")!, day("2020-01-31"), "r3")).toBe(false);
    expect(reachesPast(byName.get("handmade")!, start, "r3")).toBe(false);

    const session = new PersistentSession(
      reopened,
      { runId: "r3", periodStart: start, periodEnd: day("2020-06-30") },
      "default",
      storeContentHash(dir),
    );
    expect(session.flagged).toEqual(["lesson_late.md"]);
    expect(session.indexText).not.toContain("late");
    expect(session.indexText).toContain("[early]");
    expect(session.autoRecall("from a run ending", 3)).not.toContain("late");
    expect(session.remember({ action: "recall", query: "March" }, start, 20)).toEqual({
      results: [],
    });
    expect(session.stats()).toMatchObject({
      lookAheadFlagged: 1,
      entriesAtStart: 3,
      autoRecallHits: 1,
    });
  });
});

describe("look-ahead guard: a hidden entry is untouched and unseen", () => {
  it("a save of its exact title writes another file; a forget of it is refused as for no such title", () => {
    const { store, root, dir } = freshStore();
    store.save(
      { title: "late", content: "from a run ending in March" },
      prov("r1", "2020-01-01", "2020-03-31", "2020-03-30"),
    );
    const hiddenFile = path.join(dir, "lesson_late.md");
    const before = fs.readFileSync(hiddenFile, "utf8");
    const reopened = PersistentStore.open(root, dir);
    const start = day("2020-02-03");
    const session = new PersistentSession(
      reopened,
      { runId: "r3", periodStart: start, periodEnd: day("2020-06-30") },
      "default",
      storeContentHash(dir),
    );
    expect(session.flagged).toEqual(["lesson_late.md"]);
    const refusal = (title: string): unknown => {
      try {
        session.remember({ action: "forget", title }, start, 20);
      } catch (err) {
        return err;
      }
      return null;
    };
    const unknown = refusal("never saved");
    const hidden = refusal("late");
    expect(hidden).toBeInstanceOf(RememberError);
    // The refusal reads as for a title that never existed (only the title differs).
    expect(unknown).toBeInstanceOf(RememberError);
    expect((hidden as Error).message).toBe(
      (unknown as Error).message.replace('"never saved"', '"late"'),
    );
    const saved = session.remember(
      { action: "save", title: "late", content: "written in February" },
      start,
      20,
    ) as { saved: string; replaced: boolean };
    // The answer is the one a store without the hidden entry gives; the file is another.
    expect(saved).toMatchObject({ saved: "lesson_late.md", replaced: false });
    expect(fs.readFileSync(hiddenFile, "utf8")).toBe(before);
    expect(fs.existsSync(path.join(dir, "lesson_late~2.md"))).toBe(true);
    const found = session.remember({ action: "recall", query: "February" }, start, 20) as {
      results: { file: string }[];
    };
    expect(found.results.map((r) => r.file)).toEqual(["lesson_late.md"]);
    // The run's own entry of that title is its to replace and to forget.
    const again = session.remember(
      { action: "save", title: "late", content: "rewritten in February" },
      start,
      20,
    ) as { saved: string; replaced: boolean };
    expect(again).toMatchObject({ saved: "lesson_late.md", replaced: true });
    expect(session.remember({ action: "forget", title: "late" }, start, 20)).toEqual({
      ok: true,
      removed: ["lesson_late.md"],
    });
    expect(fs.existsSync(path.join(dir, "lesson_late~2.md"))).toBe(false);
    expect(fs.readFileSync(hiddenFile, "utf8")).toBe(before);
    expect(fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8")).toContain("(lesson_late.md)");
  });
});

describe("namespaces", () => {
  it("accept plain names and refuse traversal, separators, dots and empty names", () => {
    expect(validateNamespace("spy-momentum_2")).toBe("spy-momentum_2");
    for (const bad of ["", "..", "../x", "a/b", "a\\b", ".hidden", "a.b", "x".repeat(65)]) {
      expect(() => validateNamespace(bad)).toThrow(NamespaceError);
    }
    expect(memoryRootFor("/w/.agenticbt/runs")).toBe(path.join("/w", ".agenticbt", "memory"));
  });

  it("refuse a namespace directory or memory root that is a link", () => {
    const work = tempDir();
    dirs.push(work);
    const root = path.join(work, ".agenticbt", "memory");
    fs.mkdirSync(root, { recursive: true });
    fs.mkdirSync(path.join(work, "elsewhere"));
    fs.symlinkSync(path.join(work, "elsewhere"), path.join(root, "evil"));
    expect(() => PersistentStore.open(root, path.join(root, "evil"))).toThrow(SymlinkError);
    const root2 = path.join(work, "b", ".agenticbt", "memory");
    fs.mkdirSync(path.dirname(root2), { recursive: true });
    fs.symlinkSync(path.join(work, "elsewhere"), root2);
    expect(() => PersistentStore.open(root2, path.join(root2, "default"))).toThrow(SymlinkError);
  });

  it("refuse an entry file that is a link", () => {
    const { root, dir } = freshStore();
    fs.writeFileSync(path.join(path.dirname(root), "secret.md"), "secret");
    fs.symlinkSync(path.join(path.dirname(root), "secret.md"), path.join(dir, "lesson_x.md"));
    expect(() => PersistentStore.open(root, dir)).toThrow(SymlinkError);
  });
});
