import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { INDEX_FILE, openRecallIndex } from "../../../src/memory/recall/index.js";
import { MemoryWorkspace } from "../../../src/memory/workspace.js";
import { at, copyFixture, tempDir, where } from "./recall-test-kit.js";

let tmp: ReturnType<typeof tempDir>;
let run: string;

beforeEach(() => {
  tmp = tempDir();
  run = copyFixture(tmp.dir);
});
afterEach(() => tmp.cleanup());

const QUERIES = ["stop loss", "止损", "仓位", "earnings gap", "NVDA", "茅台 纪律"];
const OPTIONS = [
  {},
  { asOf: at("2024-02-23T12:00") },
  { asOf: at("2024-03-15T12:00"), decay: false },
];

function answers(runDir: string): unknown[] {
  const index = openRecallIndex(runDir);
  try {
    return QUERIES.flatMap((q) => OPTIONS.map((o) => index.searchSync(q, { ...o, limit: 8 })));
  } finally {
    index.close();
  }
}

describe("recall index maintenance", () => {
  it("is a derived file: deleting it and recalling again gives identical results", () => {
    const before = answers(run);
    expect(fs.existsSync(path.join(run, INDEX_FILE))).toBe(true);
    fs.rmSync(path.join(run, INDEX_FILE));
    expect(answers(run)).toEqual(before);
  });

  it("an incrementally updated index answers like one built from scratch", () => {
    const index = openRecallIndex(run);
    const ws = new MemoryWorkspace({ dir: run, runId: "fixture-2024q1" });
    ws.log("Stop loss on AMD hit at 170, 止损 clean.", at("2024-03-29T10:00"));
    ws.note("watchlist", "# Watchlist\nAMD: earnings gap candidate.\n", at("2024-03-29T18:00"));
    fs.rmSync(path.join(run, "notes", "earnings_calendar.md"));
    index.sync();
    const incremental = QUERIES.map((q) => index.searchSync(q, { limit: 8 }));
    index.close();
    fs.rmSync(path.join(run, INDEX_FILE));
    const rebuilt = openRecallIndex(run);
    expect(QUERIES.map((q) => rebuilt.searchSync(q, { limit: 8 }))).toEqual(incremental);
    rebuilt.close();
  });

  it("skips unchanged files, re-chunks only an edited one, drops deleted ones", () => {
    const index = openRecallIndex(run, { autoSync: false });
    const total = index.health().files;
    expect(index.sync()).toMatchObject({ indexed: 0, chunks: 0, skipped: total, removed: 0 });

    const file = path.join(run, "notes", "watchlist.md");
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("avoid", "avoid; weak volume"));
    expect(index.sync()).toMatchObject({ indexed: 1, chunks: 1, skipped: total - 1, removed: 0 });
    expect(where(index.searchSync("weak", {}))).toEqual(["notes/watchlist.md:2"]);

    // Rewriting the same bytes changes the mtime but not the hash: nothing is re-chunked.
    fs.writeFileSync(file, fs.readFileSync(file));
    expect(index.sync()).toMatchObject({ indexed: 0, skipped: total });

    fs.rmSync(file);
    expect(index.sync()).toMatchObject({ indexed: 0, removed: 1, skipped: total - 1 });
    expect(index.searchSync("weak", {})).toEqual([]);
    expect(index.health().files).toBe(total - 1);
    index.close();
  });

  it("finds a journal entry appended after the index was built (auto-sync on search)", () => {
    const index = openRecallIndex(run);
    expect(index.searchSync("zebra", {})).toEqual([]);
    const ws = new MemoryWorkspace({ dir: run, runId: "fixture-2024q1" });
    const { line } = ws.log("Zebra pattern on the AMD daily chart.", at("2024-03-28T16:30"));
    const [hit] = index.searchSync("zebra", { asOf: at("2024-03-28T17:00") });
    expect(hit).toMatchObject({ path: "journal/2024-03-28.md", startLine: line, endLine: line });
    expect(index.searchSync("zebra", { asOf: at("2024-03-28T16:00") })).toEqual([]);
    index.close();
  });

  it("rebuilds an index file that is not a database, and reports health", () => {
    fs.writeFileSync(path.join(run, INDEX_FILE), "not a database at all, just text".repeat(100));
    const index = openRecallIndex(run);
    const health = index.health();
    expect(health).toMatchObject({ files: 46, errors: [], embeddings: null });
    expect(health.chunks).toBeGreaterThan(46);
    expect(health.lastSync).not.toBeNull();
    expect(index.searchSync("止损", { limit: 1 })).toHaveLength(1);
    index.close();
  });

  it("auto-sync trusts a quiet directory, and sees any write made through the workspace", () => {
    const hourAgo = new Date(Date.now() - 3_600_000);
    for (const rel of ["journal", "notes", "reviews", "playbook.md"]) {
      fs.utimesSync(path.join(run, rel), hourAgo, hourAgo);
    }
    const index = openRecallIndex(run);
    // An in-place edit by another tool leaves the directories alone: only sync() finds it.
    const file = path.join(run, "notes", "watchlist.md");
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("avoid", "avoid quokka"));
    expect(index.searchSync("quokka", {})).toEqual([]);
    expect(index.sync().indexed).toBe(1);
    expect(where(index.searchSync("quokka", {}))).toEqual(["notes/watchlist.md:2"]);
    // Workspace writes are atomic renames, which stamp the directory: found without sync().
    new MemoryWorkspace({ dir: run, runId: "r" }).note(
      "new_idea",
      "wombat",
      at("2024-03-30T10:00"),
    );
    expect(where(index.searchSync("wombat", {}))).toEqual(["notes/new_idea.md:2"]);
    index.close();
  });

  it("auto-sync does not trust a snapshot taken right after the files changed (racy)", () => {
    const index = openRecallIndex(run);
    const file = path.join(run, "notes", "watchlist.md");
    fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace("avoid", "avoid quokka"));
    expect(where(index.searchSync("quokka", {}))).toEqual(["notes/watchlist.md:2"]);
    index.close();
  });
});
