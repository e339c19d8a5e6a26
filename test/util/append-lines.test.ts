import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AppendError, appendLines, truncatePartialLastLine } from "../../src/util/append-lines.js";
import { SymlinkError } from "../../src/util/no-follow.js";
import { tempDir } from "../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
let n = 0;
const file = (content?: string) => {
  const f = path.join(work, `f${n++}.jsonl`);
  if (content !== undefined) fs.writeFileSync(f, content);
  return f;
};

describe("truncatePartialLastLine", () => {
  it("cuts the bytes after the last newline and returns how many", () => {
    const f = file('{"a":1}\n{"b":2}\n{"c":');
    expect(truncatePartialLastLine(f)).toBe(5);
    expect(fs.readFileSync(f, "utf8")).toBe('{"a":1}\n{"b":2}\n');
  });

  it("leaves a file that ends in a newline, an empty file and an absent file alone", () => {
    const whole = file('{"a":1}\n');
    expect(truncatePartialLastLine(whole)).toBe(0);
    expect(fs.readFileSync(whole, "utf8")).toBe('{"a":1}\n');
    const empty = file("");
    expect(truncatePartialLastLine(empty)).toBe(0);
    expect(truncatePartialLastLine(path.join(work, "absent.jsonl"))).toBe(0);
    expect(fs.existsSync(path.join(work, "absent.jsonl"))).toBe(false);
  });

  it("empties a file without any newline (its only line is partial)", () => {
    const f = file('{"half');
    expect(truncatePartialLastLine(f)).toBe(6);
    expect(fs.statSync(f).size).toBe(0);
  });

  it("finds the last newline more than one 64 KiB read back (a partial line of 200 KB)", () => {
    const partial = "x".repeat(200_000);
    const f = file(`{"a":1}\n${partial}`);
    expect(truncatePartialLastLine(f)).toBe(200_000);
    expect(fs.readFileSync(f, "utf8")).toBe('{"a":1}\n');
  });

  it("counts bytes, not characters (multi-byte UTF-8 in the partial line)", () => {
    const f = file('{"a":"é"}\n{"b":"日本');
    // {"b":"  is 6 bytes, 日本 is 6 bytes.
    expect(truncatePartialLastLine(f)).toBe(12);
    expect(fs.readFileSync(f, "utf8")).toBe('{"a":"é"}\n');
  });

  it("refuses a link and leaves its target untouched", () => {
    const target = file('{"a":1}\n{"partial');
    const link = path.join(work, "link.jsonl");
    fs.symlinkSync(target, link);
    expect(() => truncatePartialLastLine(link)).toThrow(SymlinkError);
    expect(fs.readFileSync(target, "utf8")).toBe('{"a":1}\n{"partial');
  });
});

describe("appendLines", () => {
  it("appends whole lines and refuses text that does not end a line", () => {
    const f = file('{"a":1}\n');
    appendLines(f, '{"b":2}\n{"c":3}\n');
    expect(fs.readFileSync(f, "utf8")).toBe('{"a":1}\n{"b":2}\n{"c":3}\n');
    expect(() => appendLines(f, '{"d":4}')).toThrow(RangeError);
    expect(fs.readFileSync(f, "utf8")).toBe('{"a":1}\n{"b":2}\n{"c":3}\n');
  });

  // Truncating back after a partial write is tested through a real ENOSPC mid-write in
  // test/runner/disk-full.system.test.ts (transcript.jsonl); these targets take no byte at all.
  it("a write error names the file (AppendError)", () => {
    // A directory cannot be opened for writing: the error comes from a real open.
    const dir = path.join(work, "a-dir.jsonl");
    fs.mkdirSync(dir);
    expect(() => appendLines(dir, "{}\n")).toThrow(AppendError);
    try {
      appendLines("/dev/full", "{}\n");
      expect.unreachable("/dev/full accepts no bytes");
    } catch (err) {
      expect(err).toBeInstanceOf(AppendError);
      expect((err as AppendError).message).toContain("Could not append to /dev/full: ENOSPC");
    }
  });

  it("refuses to append through a link", () => {
    const target = file('{"a":1}\n');
    const link = path.join(work, "link2.jsonl");
    fs.symlinkSync(target, link);
    expect(() => appendLines(link, "{}\n")).toThrow(SymlinkError);
    expect(fs.readFileSync(target, "utf8")).toBe('{"a":1}\n');
  });
});
