import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  readTranscript,
  type TranscriptEntry,
  TranscriptWriter,
} from "../../src/agent/llm/transcript.js";
import { RunReadError } from "../../src/errors/report-error.js";
import { INDEX_FILE, openRecallIndex } from "../../src/memory/recall/index.js";
import { MemoryWorkspace } from "../../src/memory/workspace.js";
import { writeEquityCsv } from "../../src/rundir/equity-csv.js";
import { readJsonLines, readTextOrNull } from "../../src/rundir/run-files.js";
import { readResult } from "../../src/rundir/run-record.js";
import { tradesCsv, writeText } from "../../src/rundir/write-outputs.js";
import {
  AtomicWriteError,
  appendFileAtomic,
  writeFileAtomic,
  writeJsonAtomic,
  writeTextAtomic,
} from "../../src/util/atomic-write.js";
import { SymlinkError } from "../../src/util/no-follow.js";
import { filesContaining, type Sandbox, SECRET, sandbox, tree } from "../helpers/symlink-kit.js";

// One test per kind of link planted in a real run directory, each pointing at a file outside the
// run that holds a secret: the write or read is refused, the outside file is unchanged, and the
// secret reaches no file of the run.

let box: Sandbox;
let run: string;
let outsideBefore: Record<string, string>;

beforeEach(() => {
  box = sandbox();
  run = path.join(box.root, "run");
  fs.mkdirSync(run);
  outsideBefore = tree(box.outside);
});
afterEach(() => box.cleanup());

function plant(rel: string, target = box.secretFile): string {
  const file = path.join(run, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.symlinkSync(target, file);
  return file;
}

function refusal(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

function expectUntouched(): void {
  expect(tree(box.outside)).toEqual(outsideBefore);
  expect(filesContaining(run, SECRET)).toEqual([]);
}

describe("the atomic writer", () => {
  const outputs: [string, (file: string) => void][] = [
    ["result.json", (f) => writeJsonAtomic(f, { status: "completed" })],
    ["config.json", (f) => writeJsonAtomic(f, { id: "x" })],
    ["trades.csv", (f) => writeText(f, tradesCsv([], false))],
    ["orders.jsonl", (f) => writeText(f, '{"event":"fill"}\n')],
    ["decisions.jsonl", (f) => writeText(f, '{"kind":"bar"}\n')],
    [
      "equity.csv",
      (f) => {
        const one = new Float64Array([1]);
        writeEquityCsv(f, {
          times: new Float64Array([0]),
          equity: one,
          cash: one,
          benchmark: one,
          intraday: false,
        });
      },
    ],
  ];
  for (const [name, write] of outputs) {
    it(`refuses to replace ${name} when it is a link, and leaves the target alone`, () => {
      const link = plant(name);
      const err = refusal(() => write(link));
      expect(err).toBeInstanceOf(SymlinkError);
      expect((err as SymlinkError).file).toBe(link);
      expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
      expectUntouched();
    });
  }

  it("appendFileAtomic refuses a link instead of reading the target into the new file", () => {
    const link = plant("journal.md");
    expect(refusal(() => appendFileAtomic(link, "more\n"))).toBeInstanceOf(SymlinkError);
    expectUntouched();
  });

  it("a link planted after the check (mid-write) is replaced by the rename, not written through", () => {
    const target = path.join(run, "equity.csv");
    writeTextAtomic(target, (out) => {
      out.write("time,equity\n");
      fs.symlinkSync(box.secretFile, target);
      out.write("2024-01-02,100\n");
    });
    expect(fs.lstatSync(target).isSymbolicLink()).toBe(false);
    expect(fs.readFileSync(target, "utf8")).toBe("time,equity\n2024-01-02,100\n");
    expectUntouched();
  });

  it("opens its temp file exclusively: a link planted at every temp name it could use is not followed", () => {
    const target = path.join(run, "out.md");
    // Temp names are .<name>.<pid>.<n>.tmp; plant the next 50 counters' worth of links.
    for (let n = 0; n < 50; n++) plant(`.out.md.${process.pid}.${n}.tmp`);
    for (let i = 0; i < 5; i++) {
      const err = refusal(() => writeFileAtomic(target, "new\n"));
      if (err !== undefined) expect(err).toBeInstanceOf(AtomicWriteError);
    }
    expectUntouched();
  });
});

describe("appending to transcript.jsonl", () => {
  const entry: Omit<TranscriptEntry, "seq"> = {
    requestHash: "a".repeat(64),
    request: { model: "m", messages: [{ role: "user", content: "hi" }] },
    response: {
      message: { role: "assistant", content: "ok", refusal: null },
      finishReason: "stop",
    },
    error: null,
    usage: { prompt: 3, completion: 1, cached: 0 },
    latencyMs: 12,
    attempts: 1,
    source: "network",
  };

  it("refuses a transcript that is a link (no truncation or append through it)", () => {
    const link = plant("transcript.jsonl");
    const err = refusal(() => new TranscriptWriter(link).append(entry));
    expect(err).toBeInstanceOf(SymlinkError);
    expect(refusal(() => readTranscript(link))).toBeInstanceOf(SymlinkError);
    expectUntouched();
  });

  it("refuses a transcript replaced by a link after the writer opened it", () => {
    const file = path.join(run, "transcript.jsonl");
    const writer = new TranscriptWriter(file);
    writer.append(entry);
    fs.rmSync(file);
    plant("transcript.jsonl");
    expect(refusal(() => writer.append(entry))).toBeInstanceOf(SymlinkError);
    expectUntouched();
  });
});

describe("reading a run for show, diff and list", () => {
  it("refuses result.json, decisions.jsonl and a note that are links, with the path in the error", () => {
    for (const rel of ["result.json", "decisions.jsonl", "notes/risk.md"]) plant(rel);
    const resultErr = refusal(() => readResult(run));
    expect(resultErr).toBeInstanceOf(RunReadError);
    expect((resultErr as Error).message).toContain(
      `${path.join(run, "result.json")}: it is a symbolic link`,
    );
    expect(refusal(() => readJsonLines(path.join(run, "decisions.jsonl")))).toBeInstanceOf(
      RunReadError,
    );
    expect(refusal(() => readTextOrNull(path.join(run, "notes/risk.md")))).toBeInstanceOf(
      RunReadError,
    );
  });
});

describe("the recall index", () => {
  beforeEach(() => {
    const ws = new MemoryWorkspace({ dir: run, runId: "r1" });
    ws.init("# Manual\n\nBuy dips.\n");
    ws.note("risk", "stop at two percent", Date.parse("2024-01-02T10:00:00Z"));
  });

  it("does not read a linked note or a linked journal/ directory; each is an index error", () => {
    const journalOutside = path.join(box.outside, "journal");
    fs.mkdirSync(journalOutside);
    fs.writeFileSync(
      path.join(journalOutside, "2024-01-02.md"),
      `# Journal\n\n[10:00] ${SECRET}\n`,
    );
    fs.rmSync(path.join(run, "journal"), { recursive: true });
    plant("journal", journalOutside);
    plant("notes/leak.md");
    outsideBefore = tree(box.outside);
    const index = openRecallIndex(run);
    try {
      const errors = index.health().errors;
      expect(errors.some((e) => e.startsWith("notes/leak.md") && e.includes("symbolic link"))).toBe(
        true,
      );
      expect(errors.some((e) => e.startsWith("journal") && e.includes("symbolic link"))).toBe(true);
      expect(index.searchSync("sk-test-SECRET-0123456789 OPENAI_API_KEY", { limit: 5 })).toEqual(
        [],
      );
      expect(index.searchSync("stop percent", { limit: 5 }).map((c) => c.path)).toEqual([
        "notes/risk.md",
      ]);
    } finally {
      index.close();
    }
    expectUntouched();
  });

  for (const suffix of ["", "-wal", "-journal", "-shm"]) {
    it(`refuses to open the index when ${INDEX_FILE}${suffix} is a link`, () => {
      const link = plant(`${INDEX_FILE}${suffix}`);
      const err = refusal(() => openRecallIndex(run).close());
      expect(err).toBeInstanceOf(SymlinkError);
      expect((err as SymlinkError).file).toBe(link);
      expectUntouched();
    });
  }
});
