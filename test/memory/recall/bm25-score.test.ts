import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bm25ToScore, openRecallIndex } from "../../../src/memory/recall/index.js";
import { MemoryWorkspace } from "../../../src/memory/workspace.js";
import { at, tempDir } from "./recall-test-kit.js";

describe("bm25ToScore", () => {
  it("maps r = -bm25 to r / (1 + r): increasing, in (0, 1), never clamped", () => {
    const bm25 = [-1e-6, -0.01, -0.5, -1, -2, -10, -100, -1e4];
    const scores = bm25.map(bm25ToScore);
    expect(scores[3]).toBe(0.5);
    for (let i = 1; i < scores.length; i++) expect(scores[i]!).toBeGreaterThan(scores[i - 1]!);
    for (const s of scores) {
      expect(s).toBeGreaterThan(0);
      expect(s).toBeLessThan(1);
    }
  });
});

describe("BM25 scores from the index", () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => {
    tmp = tempDir();
  });
  afterEach(() => tmp.cleanup());

  it("keeps distinct relevance distinct: strong matches do not all collapse to 1", () => {
    const ws = new MemoryWorkspace({ dir: tmp.dir, runId: "r1" });
    ws.init("# Manual\nUnrelated words about moving averages.\n");
    ws.note("a", "gap gap gap gap earnings", at("2024-01-02T10:00"));
    ws.note("b", "gap gap earnings", at("2024-01-02T10:00"));
    ws.note(
      "c",
      "gap earnings and a lot of other words that dilute the match here",
      at("2024-01-02T10:00"),
    );
    for (let i = 0; i < 20; i++) ws.note(`filler${i}`, `filler text ${i}`, at("2024-01-02T10:00"));
    const index = openRecallIndex(tmp.dir);
    const hits = index.searchSync("gap", { limit: 10 });
    expect(hits.map((h) => h.path)).toEqual(["notes/a.md", "notes/b.md", "notes/c.md"]);
    const scores = hits.map((h) => h.score);
    expect(new Set(scores).size).toBe(3);
    expect(scores[0]!).toBeLessThan(1);
    expect(scores[0]!).toBeGreaterThan(scores[1]!);
    expect(scores[1]!).toBeGreaterThan(scores[2]!);
    index.close();
  });
});
