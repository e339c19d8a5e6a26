import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MemoryWorkspace } from "../../src/memory/workspace.js";
import { SymlinkError } from "../../src/util/no-follow.js";
import { filesContaining, type Sandbox, SECRET, sandbox, tree } from "../helpers/symlink-kit.js";

// Links planted in a live run directory (or in a memory source) must never be read or written
// through: the outside file stays unchanged, its content never reaches the run, and the refusal
// is a SymlinkError naming the link.

const at = (wallClock: string): number => Date.parse(`${wallClock}:00Z`);

let box: Sandbox;
let dir: string;
let ws: MemoryWorkspace;
let outsideBefore: Record<string, string>;

beforeEach(() => {
  box = sandbox();
  dir = path.join(box.root, "run");
  ws = new MemoryWorkspace({ dir, runId: "r1" });
  ws.init("# Manual\n\nBuy dips.\n");
  ws.note("risk", "stop at 2%", at("2024-01-02T10:00"));
  outsideBefore = tree(box.outside);
});
afterEach(() => box.cleanup());

/** Replaces `rel` in the run with a link to `target` (the secret file by default). */
function plant(rel: string, target = box.secretFile): string {
  const file = path.join(dir, rel);
  fs.rmSync(file, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.symlinkSync(target, file);
  return file;
}

function expectRefused(fn: () => unknown, link: string): void {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(SymlinkError);
  expect((caught as SymlinkError).file).toBe(link);
  expect((caught as Error).message).toContain("symbolic link");
  expect(tree(box.outside)).toEqual(outsideBefore);
  expect(filesContaining(dir, SECRET)).toEqual([]);
}

describe("links to a file, planted in the run directory", () => {
  it("journal/<day>.md: log refuses (it would read the secret and write it into the journal)", () => {
    const link = plant("journal/2024-01-02.md");
    expectRefused(() => ws.log("bought", at("2024-01-02T10:00")), link);
  });

  it("notes/<key>.md: overwriting refuses (the backup would copy the secret), reading refuses", () => {
    const link = plant("notes/risk.md");
    expectRefused(() => ws.note("risk", "new rule", at("2024-01-03T10:00")), link);
    expectRefused(() => ws.readNote("risk"), link);
    expectRefused(() => ws.deleteNote("risk"), link);
  });

  it("playbook.md: a lesson refuses, reading the playbook refuses", () => {
    const link = plant("playbook.md");
    expectRefused(() => ws.note("playbook", "lesson", at("2024-01-03T10:00")), link);
    expectRefused(() => ws.readPlaybook(), link);
  });

  it("reviews/<period>.md: writing the review refuses", () => {
    const link = plant("reviews/week_2024-W01.md");
    expectRefused(() => ws.review("week", "2024-W01", "ok", at("2024-01-07T16:00")), link);
  });

  it("stats() skips links instead of reading them, so a run can still finish", () => {
    plant("journal/2024-01-02.md");
    plant("notes/evil.md");
    const s = ws.stats();
    expect(s.journalFiles).toBe(0);
    expect(s.notes).toBe(1);
  });
});

describe("memory directories replaced by links to a directory outside", () => {
  for (const sub of ["journal", "notes", "reviews", "backups"] as const) {
    it(`${sub}/ is refused, and nothing is created or changed outside`, () => {
      const link = plant(sub, box.outside);
      const write = () => {
        if (sub === "journal") ws.log("bought", at("2024-01-02T10:00"));
        else if (sub === "reviews") ws.review("week", "2024-W01", "ok", at("2024-01-07T16:00"));
        else ws.note("risk", "new rule", at("2024-01-03T10:00"));
      };
      expectRefused(write, link);
    });
  }

  it("listNotes refuses a linked notes/ instead of listing the outside directory", () => {
    const link = plant("notes", box.outside);
    fs.writeFileSync(path.join(box.outside, "planted.md"), SECRET);
    outsideBefore = tree(box.outside);
    expectRefused(() => ws.listNotes(), link);
  });
});

describe("copying memory in (--memory-from, --preset)", () => {
  let source: string;
  beforeEach(() => {
    source = path.join(box.root, "source-run");
    const src = new MemoryWorkspace({ dir: source, runId: "src" });
    src.init("# Source manual\n");
    src.note("edge", "fade gaps", at("2024-01-02T10:00"));
  });

  const fresh = () => {
    const target = new MemoryWorkspace({ dir: path.join(box.root, "new-run"), runId: "r2" });
    return target;
  };

  it("a source playbook.md linked to the environment is refused, nothing is copied", () => {
    fs.rmSync(path.join(source, "playbook.md"));
    fs.symlinkSync(box.secretFile, path.join(source, "playbook.md"));
    const target = fresh();
    expect(() => target.copyFrom(source)).toThrow(SymlinkError);
    expect(filesContaining(path.join(box.root, "new-run"), SECRET)).toEqual([]);
  });

  it("a source note, a source notes/ directory and a source run directory that are links are refused", () => {
    fs.symlinkSync(box.secretFile, path.join(source, "notes", "leak.md"));
    expect(() => fresh().copyFrom(source)).toThrow(SymlinkError);
    fs.rmSync(path.join(source, "notes", "leak.md"));

    fs.renameSync(path.join(source, "notes"), path.join(box.outside, "notes"));
    fs.symlinkSync(path.join(box.outside, "notes"), path.join(source, "notes"));
    expect(() => fresh().copyFrom(source)).toThrow(SymlinkError);

    const linkedRun = path.join(box.root, "linked-run");
    fs.symlinkSync(source, linkedRun);
    expect(() => fresh().copyFrom(linkedRun)).toThrow(/linked-run: it is a symbolic link/);
    expect(filesContaining(path.join(box.root, "new-run"), SECRET)).toEqual([]);
  });

  it("a preset source file that is a link is refused", () => {
    const preset = path.join(box.root, "preset.md");
    fs.symlinkSync(box.secretFile, preset);
    expect(() => fresh().seedPreset("notes/experience.md", preset)).toThrow(SymlinkError);
    expect(filesContaining(path.join(box.root, "new-run"), SECRET)).toEqual([]);
  });
});
