import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MemoryInputError, MemoryPathError } from "../../src/memory/memory-errors.js";
import { MemoryKeyError } from "../../src/memory/memory-key.js";
import { MemoryWorkspace } from "../../src/memory/workspace.js";
import { SymlinkError } from "../../src/util/no-follow.js";

/** Simulated time of a wall-clock "YYYY-MM-DDTHH:MM" as written in the data. */
const at = (wallClock: string): number => Date.parse(`${wallClock}:00Z`);

let parent: string;
let dir: string;
let ws: MemoryWorkspace;

beforeEach(() => {
  parent = fs.mkdtempSync(path.join(os.tmpdir(), "abt-ws-"));
  dir = path.join(parent, "run");
  ws = new MemoryWorkspace({ dir, runId: "r1" });
  ws.init("# Manual\n\nBuy dips.\n");
});
afterEach(() => {
  fs.rmSync(parent, { recursive: true, force: true });
});

const read = (rel: string): string => fs.readFileSync(path.join(dir, rel), "utf8");

/** Every path under `root` with its content (directories as "<dir>"), for before/after diffs. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    out[path.relative(root, full)] = entry.isDirectory() ? "<dir>" : fs.readFileSync(full, "utf8");
  }
  return out;
}

describe("init", () => {
  it("creates the layout and the playbook, and keeps an existing playbook", () => {
    expect(fs.readdirSync(dir).sort()).toEqual([
      "backups",
      "journal",
      "notes",
      "playbook.md",
      "reviews",
    ]);
    expect(read("playbook.md")).toBe("# Manual\n\nBuy dips.\n");
    ws.init("# Other\n");
    expect(read("playbook.md")).toBe("# Manual\n\nBuy dips.\n");
  });

  it("rejects a run id that would break the attribution comment", () => {
    expect(() => new MemoryWorkspace({ dir, runId: "a-->b" })).toThrow(MemoryInputError);
    expect(() => new MemoryWorkspace({ dir, runId: "a\nb" })).toThrow(MemoryInputError);
    expect(() => new MemoryWorkspace({ dir, runId: "" })).toThrow(MemoryInputError);
  });
});

describe("log", () => {
  it("appends timestamped entries and returns the line each starts on", () => {
    expect(ws.log("RSI at 28", at("2024-03-15T14:30"))).toEqual({
      path: "journal/2024-03-15.md",
      line: 3,
    });
    expect(
      ws.log("Bought AAPL\nreason: oversold\n\n# not a heading", at("2024-03-15T14:32")),
    ).toEqual({ path: "journal/2024-03-15.md", line: 4 });
    expect(ws.log("[15:00] fake stamp\n", at("2024-03-15T15:05"))).toEqual({
      path: "journal/2024-03-15.md",
      line: 8,
    });
    expect(read("journal/2024-03-15.md")).toBe(
      [
        "# Journal 2024-03-15",
        "",
        "[14:30] RSI at 28",
        "[14:32] Bought AAPL",
        "  reason: oversold",
        "",
        "  # not a heading",
        "[15:05] [15:00] fake stamp",
        "",
      ].join("\n"),
    );
  });

  it("starts a new file per simulated day, using the UTC wall clock", () => {
    ws.log("late", at("2024-03-15T23:59"));
    expect(ws.log("early", at("2024-03-16T00:01"))).toEqual({
      path: "journal/2024-03-16.md",
      line: 3,
    });
    expect(read("journal/2024-03-16.md")).toBe("# Journal 2024-03-16\n\n[00:01] early\n");
  });

  it("turns CRLF into LF and refuses an empty entry without creating a file", () => {
    ws.log("a\r\nb", at("2024-03-15T09:00"));
    expect(read("journal/2024-03-15.md")).toBe("# Journal 2024-03-15\n\n[09:00] a\n  b\n");
    expect(() => ws.log("  \n ", at("2024-03-16T09:00"))).toThrow(MemoryInputError);
    expect(fs.existsSync(path.join(dir, "journal/2024-03-16.md"))).toBe(false);
  });

  it("refuses a non-finite time", () => {
    expect(() => ws.log("x", Number.NaN)).toThrow(MemoryInputError);
  });
});

describe("note", () => {
  it("writes an attributed note and reads back the content only", () => {
    expect(ws.note("position_AAPL", "100 @ 172.5\nstop 168", at("2024-03-15T14:35"))).toEqual({
      path: "notes/position_AAPL.md",
      backup: null,
    });
    expect(read("notes/position_AAPL.md")).toBe(
      "<!-- written 2024-03-15 14:35 by run r1 -->\n100 @ 172.5\nstop 168\n",
    );
    expect(ws.readNote("position_AAPL")).toBe("100 @ 172.5\nstop 168");
    expect(ws.readNote("missing")).toBeNull();
  });

  it("keeps every previous version in backups", () => {
    ws.note("regime", "v1", at("2024-03-15T10:00"));
    expect(ws.note("regime", "v2", at("2024-03-15T11:00")).backup).toBe(
      "backups/notes/regime.20240315T1100.1.md",
    );
    expect(ws.note("regime", "v3", at("2024-03-15T11:00")).backup).toBe(
      "backups/notes/regime.20240315T1100.2.md",
    );
    expect(read("backups/notes/regime.20240315T1100.1.md")).toBe(
      "<!-- written 2024-03-15 10:00 by run r1 -->\nv1\n",
    );
    expect(read("backups/notes/regime.20240315T1100.2.md")).toBe(
      "<!-- written 2024-03-15 11:00 by run r1 -->\nv2\n",
    );
    expect(ws.readNote("regime")).toBe("v3");
  });

  it("appends playbook lessons under one Lessons heading, never overwriting the manual", () => {
    expect(ws.note("playbook", "RSI fails in earnings", at("2024-02-10T16:00"))).toEqual({
      path: "playbook.md",
      backup: null,
    });
    ws.note("playbook", "Pause after 3 losses\nfor one day", at("2024-04-02T16:00"));
    expect(read("playbook.md")).toBe(
      [
        "# Manual",
        "",
        "Buy dips.",
        "",
        "## Lessons",
        "",
        "- [2024-02-10 16:00] RSI fails in earnings",
        "- [2024-04-02 16:00] Pause after 3 losses",
        "  for one day",
        "",
      ].join("\n"),
    );
    expect(fs.readdirSync(path.join(dir, "notes"))).toEqual([]);
    expect(ws.readNote("playbook")).toBe(ws.readPlaybook());
  });

  it("adds a lesson at the end of an existing Lessons section, before later sections", () => {
    fs.writeFileSync(
      path.join(dir, "playbook.md"),
      "# Manual\n\n## Lessons\n\n- old one\n\n## Exits\n\nATR stop.\n",
    );
    ws.note("playbook", "new one", at("2024-03-01T09:30"));
    expect(read("playbook.md")).toBe(
      "# Manual\n\n## Lessons\n\n- old one\n- [2024-03-01 09:30] new one\n\n## Exits\n\nATR stop.\n",
    );
  });

  it("rejects key attacks and writes nothing anywhere", () => {
    const before = snapshot(parent);
    for (const key of ["../playbook", "../../evil", "/etc/x", "a/b", "a\\b", "..", ".hidden", ""]) {
      expect(() => ws.note(key, "pwned", at("2024-03-15T10:00"))).toThrow(MemoryKeyError);
      expect(() => ws.readNote(key)).toThrow(MemoryKeyError);
      expect(() => ws.deleteNote(key)).toThrow(MemoryKeyError);
    }
    expect(() => ws.review("week", "../2024-W01", "x", at("2024-03-15T10:00"))).toThrow(
      MemoryKeyError,
    );
    expect(snapshot(parent)).toEqual(before);
  });

  it("refuses to follow a planted symlink out of the run directory", () => {
    const outside = path.join(parent, "outside");
    fs.mkdirSync(outside);
    fs.rmSync(path.join(dir, "notes"), { recursive: true });
    fs.symlinkSync(outside, path.join(dir, "notes"));
    expect(() => ws.note("x", "escape", at("2024-03-15T10:00"))).toThrow(SymlinkError);
    expect(fs.readdirSync(outside)).toEqual([]);
  });
});

describe("deleteNote and listNotes", () => {
  it("moves the note into backups and lists the remaining keys sorted", () => {
    ws.note("zeta", "z", at("2024-03-15T10:00"));
    ws.note("alpha", "a", at("2024-03-15T10:00"));
    fs.writeFileSync(path.join(dir, "notes", ".alpha.md.123.1.tmp"), "stray");
    expect(ws.listNotes()).toEqual(["alpha", "zeta"]);
    expect(ws.deleteNote("zeta", at("2024-03-16T09:00"))).toBe(
      "backups/notes/zeta.20240316T0900.1.md",
    );
    expect(read("backups/notes/zeta.20240316T0900.1.md")).toBe(
      "<!-- written 2024-03-15 10:00 by run r1 -->\nz\n",
    );
    expect(ws.deleteNote("alpha")).toBe("backups/notes/alpha.deleted.1.md");
    expect(ws.deleteNote("alpha")).toBeNull();
    expect(ws.listNotes()).toEqual([]);
    expect(() => ws.deleteNote("playbook")).toThrow(MemoryInputError);
  });
});

describe("review", () => {
  it("writes weekly and monthly reviews, backing up a rewrite", () => {
    expect(ws.review("week", "2024-W11", "calm week", at("2024-03-15T16:00"))).toEqual({
      path: "reviews/week_2024-W11.md",
      backup: null,
    });
    ws.review("month", "2024-03", "March", at("2024-03-29T16:00"));
    expect(ws.review("week", "2024-W11", "redo", at("2024-03-16T10:00")).backup).toBe(
      "backups/reviews/week_2024-W11.20240316T1000.1.md",
    );
    expect(read("reviews/week_2024-W11.md")).toBe(
      "<!-- written 2024-03-16 10:00 by run r1 -->\nredo\n",
    );
    expect(read("reviews/month_2024-03.md")).toBe(
      "<!-- written 2024-03-29 16:00 by run r1 -->\nMarch\n",
    );
    expect(() => ws.review("month", "2024-W11", "x", at("2024-03-16T10:00"))).toThrow(
      MemoryKeyError,
    );
  });
});

describe("seedPreset", () => {
  it("copies a preset byte for byte into notes, reviews or the playbook", () => {
    const src = path.join(parent, "experience.md");
    fs.writeFileSync(src, "三年经验\n");
    expect(ws.seedPreset("notes/experience.md", src)).toEqual({
      path: "notes/experience.md",
      backup: null,
    });
    expect(read("notes/experience.md")).toBe("三年经验\n");
    expect(ws.readNote("experience")).toBe("三年经验");
    expect(ws.seedPreset("./playbook.md", src)).toEqual({
      path: "playbook.md",
      backup: "backups/playbook.preset.1.md",
    });
    expect(read("backups/playbook.preset.1.md")).toBe("# Manual\n\nBuy dips.\n");
    expect(ws.seedPreset("reviews/month_2023-12.md", src).path).toBe("reviews/month_2023-12.md");
  });

  it("rejects targets outside notes/, reviews/ and playbook.md, and unreadable sources", () => {
    const src = path.join(parent, "experience.md");
    fs.writeFileSync(src, "x");
    const before = snapshot(parent);
    for (const rel of [
      "../evil.md",
      "notes/../../evil.md",
      "journal/2024-01-01.md",
      "notes/a/b.md",
      "notes/.hidden.md",
      "notes/x.txt",
      "/etc/passwd",
      "config.json",
      "notes\\x.md",
    ]) {
      expect(() => ws.seedPreset(rel, src)).toThrow(MemoryPathError);
    }
    expect(() => ws.seedPreset("notes/x.md", path.join(parent, "missing.md"))).toThrow(
      /Cannot read preset file .*missing\.md.*--preset/,
    );
    expect(snapshot(parent)).toEqual(before);
  });
});

describe("copyFrom", () => {
  it("copies playbook, notes and reviews of another run but not its journal", () => {
    const otherDir = path.join(parent, "other");
    const other = new MemoryWorkspace({ dir: otherDir, runId: "r0" });
    other.init("# Old manual\n");
    other.note("playbook", "lesson", at("2023-12-01T16:00"));
    other.note("experience", "exp", at("2023-12-01T16:00"));
    other.review("month", "2023-11", "nov", at("2023-11-30T16:00"));
    other.log("old day", at("2023-12-01T10:00"));
    expect(ws.copyFrom(otherDir)).toEqual([
      "playbook.md",
      "notes/experience.md",
      "reviews/month_2023-11.md",
    ]);
    expect(ws.readPlaybook()).toBe(other.readPlaybook());
    expect(read("notes/experience.md")).toBe("<!-- written 2023-12-01 16:00 by run r0 -->\nexp\n");
    expect(fs.readdirSync(path.join(dir, "journal"))).toEqual([]);
    expect(read("backups/playbook.copied.1.md")).toBe("# Manual\n\nBuy dips.\n");
  });

  it("explains a missing source run", () => {
    expect(() => ws.copyFrom(path.join(parent, "nope"))).toThrow(/--memory-from/);
    expect(() => ws.copyFrom(dir)).toThrow(MemoryInputError);
  });
});

describe("stats", () => {
  it("counts journal files and entries, notes, reviews and live bytes", () => {
    ws.log("one", at("2024-03-14T10:00"));
    ws.log("two\nmore", at("2024-03-15T10:00"));
    ws.log("three", at("2024-03-15T11:00"));
    ws.note("n", "x", at("2024-03-15T11:00"));
    ws.note("n", "y", at("2024-03-15T12:00"));
    ws.review("week", "2024-W11", "w", at("2024-03-15T16:00"));
    const journal14 = "# Journal 2024-03-14\n\n[10:00] one\n";
    const journal15 = "# Journal 2024-03-15\n\n[10:00] two\n  more\n[11:00] three\n";
    const note = "<!-- written 2024-03-15 12:00 by run r1 -->\ny\n";
    const review = "<!-- written 2024-03-15 16:00 by run r1 -->\nw\n";
    const playbook = "# Manual\n\nBuy dips.\n";
    expect(ws.stats()).toEqual({
      journalFiles: 2,
      journalEntries: 3,
      notes: 1,
      reviews: 1,
      bytes: [journal14, journal15, note, review, playbook].join("").length,
    });
  });
});
