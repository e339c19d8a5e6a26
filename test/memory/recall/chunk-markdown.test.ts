import { describe, expect, it } from "vitest";
import {
  CHUNK_TOKENS,
  chunkMarkdown,
  OVERLAP_TOKENS,
  UNDATABLE,
} from "../../../src/memory/recall/chunk-markdown.js";
import { dateFile } from "../../../src/memory/recall/memory-sources.js";
import { countTokens } from "../../../src/memory/recall/tokenize.js";
import { at } from "./recall-test-kit.js";

const journal = (name: string, text: string) =>
  chunkMarkdown(text, dateFile({ path: `journal/${name}`, source: "journal" }, text));

describe("chunkMarkdown", () => {
  it("gives every journal entry its own chunk, dated by file day and clock", () => {
    const text = "# Journal 2024-03-15\n\n[10:00] morning\n  more morning\n\n[15:00] afternoon\n";
    expect(
      journal("2024-03-15.md", text).map((c) => [c.startLine, c.endLine, c.text, c.at]),
    ).toEqual([
      [1, 1, "# Journal 2024-03-15", at("2024-03-15T00:00")],
      [3, 4, "[10:00] morning\n  more morning", at("2024-03-15T10:00")],
      [6, 6, "[15:00] afternoon", at("2024-03-15T15:00")],
    ]);
  });

  it("dates a journal whose name is not a date after any simulated now", () => {
    expect(journal("draft.md", "[10:00] x\n").map((c) => c.at)).toEqual([UNDATABLE]);
  });

  it("dates playbook lessons per line and leaves the manual undated", () => {
    const text =
      "# Manual\nBuy dips.\n\n## Lessons\n\n- [2024-01-02 16:00] one\n  detail\n- [2024-02-03 16:00] two\n";
    const chunks = chunkMarkdown(text, dateFile({ path: "playbook.md", source: "playbook" }, text));
    expect(chunks.map((c) => [c.startLine, c.endLine, c.at])).toEqual([
      [1, 2, null],
      [4, 4, null],
      [6, 7, at("2024-01-02T16:00")],
      [8, 8, at("2024-02-03T16:00")],
    ]);
  });

  it("skips the attribution line of notes and dates their chunks by it", () => {
    const text = "<!-- written 2024-03-01 10:00 by run r1 -->\n# Title\nbody\n## Two\nmore\n";
    const chunks = chunkMarkdown(text, dateFile({ path: "notes/x.md", source: "note" }, text));
    expect(chunks.map((c) => [c.startLine, c.endLine, c.at])).toEqual([
      [2, 3, at("2024-03-01T10:00")],
      [4, 5, at("2024-03-01T10:00")],
    ]);
  });

  it("cuts long sections into ~400-token windows with ~80 tokens of overlap", () => {
    // 100 lines of 10 words under one heading: windows of 40 lines, stepping back 8.
    const body = Array.from({ length: 100 }, (_, i) => `line ${i + 2} ${"w ".repeat(8)}`.trim());
    const text = ["# Long", ...body].join("\n");
    const chunks = chunkMarkdown(text, dateFile({ path: "notes/l.md", source: "note" }, text));
    expect(chunks.map((c) => [c.startLine, c.endLine])).toEqual([
      [1, 40],
      [33, 72],
      [65, 101],
    ]);
    const lines = text.split("\n");
    for (const c of chunks) {
      expect(c.text).toBe(lines.slice(c.startLine - 1, c.endLine).join("\n"));
      expect(countTokens(c.text)).toBeLessThanOrEqual(CHUNK_TOKENS);
    }
    // Later windows keep the heading as indexed context, so "Long" still finds them.
    expect(chunks.map((c) => c.context)).toEqual(["", "# Long", "# Long"]);
    const overlap = chunks[0]!.endLine - chunks[1]!.startLine + 1;
    expect(overlap * 10).toBeLessThanOrEqual(OVERLAP_TOKENS);
  });
});
