import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openRecallIndex } from "../../../src/memory/recall/index.js";
import { MemoryWorkspace } from "../../../src/memory/workspace.js";
import { at, tempDir } from "./recall-test-kit.js";

let tmp: ReturnType<typeof tempDir>;
let run: string;

// Three journal days that say "breakout" three times each, a note that says it once among other
// words, a weekly review that says it twice: by BM25 the journals rank first.
beforeEach(() => {
  tmp = tempDir();
  run = path.join(tmp.dir, "run");
  const ws = new MemoryWorkspace({ dir: run, runId: "cap-test" });
  ws.init("# Manual\n\nBuy strength.\n");
  for (const day of ["02", "03", "04"]) {
    ws.log("breakout breakout breakout", at(`2024-01-${day}T10:00`));
  }
  ws.note(
    "setups",
    "a breakout needs volume, a close above the range, and a market that is not falling apart today",
    at("2024-01-04T11:00"),
  );
  ws.review("week", "2024-W01", "breakout week: breakout held", at("2024-01-05T16:00"));
});
afterEach(() => tmp.cleanup());

const sources = (cs: readonly { source: string }[]) => cs.map((c) => c.source);

describe("per-source caps", () => {
  it("without a cap the best hits win whatever their source; with one, each source gives at most n", () => {
    const index = openRecallIndex(run);
    try {
      expect(sources(index.searchSync("breakout", { limit: 3 }))).toEqual([
        "journal",
        "journal",
        "journal",
      ]);
      // Cap 1: one journal, then the next best of the other sources (the review says it twice).
      expect(sources(index.searchSync("breakout", { limit: 3, perSourceCap: 1 }))).toEqual([
        "journal",
        "review",
        "note",
      ]);
      // Cap 2, limit 4: two journals, the review, the note; the third journal is passed over.
      const four = index.searchSync("breakout", { limit: 4, perSourceCap: 2 });
      expect(sources(four)).toEqual(["journal", "journal", "review", "note"]);
      // A cap above what any source has changes nothing.
      expect(index.searchSync("breakout", { limit: 5, perSourceCap: 5 })).toEqual(
        index.searchSync("breakout", { limit: 5 }),
      );
      expect(() => index.searchSync("breakout", { perSourceCap: 0 })).toThrow(/perSourceCap/);
    } finally {
      index.close();
    }
  });
});
