import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  AtomicWriteError,
  appendFileAtomic,
  writeFileAtomic,
  writeJsonAtomic,
  writeTextAtomic,
} from "../../src/util/atomic-write.js";

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "abt-atomic-"));
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("writeFileAtomic", () => {
  it("creates missing parent directories and replaces the content, leaving no temp file", () => {
    const file = path.join(tmp, "a", "b", "out.md");
    writeFileAtomic(file, "first\n");
    writeFileAtomic(file, "second\n");
    expect(fs.readFileSync(file, "utf8")).toBe("second\n");
    expect(fs.readdirSync(path.join(tmp, "a", "b"))).toEqual(["out.md"]);
  });

  it("writes bytes exactly", () => {
    const file = path.join(tmp, "bin");
    writeFileAtomic(file, new Uint8Array([0, 255, 10, 13]));
    expect([...fs.readFileSync(file)]).toEqual([0, 255, 10, 13]);
  });

  it("fails with a typed error and changes nothing when the parent is a file", () => {
    const blocker = path.join(tmp, "blocker");
    fs.writeFileSync(blocker, "x");
    let caught: unknown;
    try {
      writeFileAtomic(path.join(blocker, "note.md"), "new");
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AtomicWriteError);
    const error = caught as AtomicWriteError;
    expect(error.file).toBe(path.join(blocker, "note.md"));
    expect(error.message).toContain("previous content is unchanged");
    expect((error.cause as NodeJS.ErrnoException).code).toMatch(/ENOTDIR|EEXIST/);
    expect(fs.readdirSync(tmp)).toEqual(["blocker"]);
    expect(fs.readFileSync(blocker, "utf8")).toBe("x");
  });

  it("removes its temp file when the final rename fails, leaving the target as it was", () => {
    // A non-empty directory cannot be replaced by a file: the failure comes after the temp file
    // was fully written, i.e. mid-way through the write.
    const target = path.join(tmp, "target");
    fs.mkdirSync(target);
    fs.writeFileSync(path.join(target, "keep.txt"), "old");
    expect(() => writeFileAtomic(target, "new")).toThrow(AtomicWriteError);
    expect(fs.readdirSync(tmp)).toEqual(["target"]);
    expect(fs.readFileSync(path.join(target, "keep.txt"), "utf8")).toBe("old");
  });

  it("never lets a concurrent reader in another process see a partial file", async () => {
    const size = 128 * 1024;
    const file = path.join(tmp, "big.txt");
    const stop = path.join(tmp, "stop");
    const a = "a".repeat(size);
    const b = "b".repeat(size);
    writeFileAtomic(file, a);
    const reader = `
      const fs = require("node:fs");
      const [file, stop, size] = process.argv.slice(1);
      const a = "a".repeat(Number(size)), b = "b".repeat(Number(size));
      let reads = 0, bad = 0;
      process.stdout.write("ready\\n");
      for (let i = 0; i < 1000000 && !fs.existsSync(stop); i++) {
        const s = fs.readFileSync(file, "utf8");
        reads++;
        if (s !== a && s !== b) bad++;
      }
      process.stdout.write(JSON.stringify({ reads, bad }) + "\\n");
    `;
    const child = spawn(process.execPath, ["-e", reader, file, stop, String(size)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    const done = new Promise<void>((resolve) => child.on("close", () => resolve()));
    await new Promise<void>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("ready")) resolve();
      });
    });
    for (let i = 0; i < 150; i++) writeFileAtomic(file, i % 2 === 0 ? b : a);
    fs.writeFileSync(stop, "");
    await done;
    const result = JSON.parse(out.slice(out.indexOf("{"))) as { reads: number; bad: number };
    expect(result.reads).toBeGreaterThan(0);
    expect(result.bad).toBe(0);
    expect(fs.readFileSync(file, "utf8")).toBe(a);
    expect(fs.readdirSync(tmp).sort()).toEqual(["big.txt", "stop"]);
  });
});

describe("appendFileAtomic", () => {
  it("creates the file, then appends to it", () => {
    const file = path.join(tmp, "j", "day.md");
    appendFileAtomic(file, "one\n");
    appendFileAtomic(file, "two\n");
    expect(fs.readFileSync(file, "utf8")).toBe("one\ntwo\n");
    expect(fs.readdirSync(path.join(tmp, "j"))).toEqual(["day.md"]);
  });
});

describe("writeJsonAtomic", () => {
  it("writes two-space JSON with a trailing newline", () => {
    const file = path.join(tmp, "c.json");
    writeJsonAtomic(file, { a: 1, b: [true, null] });
    expect(fs.readFileSync(file, "utf8")).toBe(
      '{\n  "a": 1,\n  "b": [\n    true,\n    null\n  ]\n}\n',
    );
  });
});

describe("writeTextAtomic on a large file (bytes flushed behind the writes)", () => {
  const openFds = () =>
    fs.existsSync("/proc/self/fd") ? fs.readdirSync("/proc/self/fd").length : 0;

  it("writes 20 MiB exactly and, once its background syncs are done, holds no descriptor", async () => {
    const file = path.join(tmp, "big.csv");
    // 20 MiB of 64-byte rows: row k is its number padded to 63 characters and a newline.
    const rows = (20 << 20) / 64;
    const before = openFds();
    writeTextAtomic(file, (out) => {
      for (let k = 0; k < rows; k++) out.write(`${String(k).padStart(63, "0")}\n`);
    });
    const bytes = fs.readFileSync(file);
    expect(bytes.length).toBe(20 << 20);
    expect(bytes.subarray(0, 64).toString()).toBe(`${"0".repeat(63)}\n`);
    expect(bytes.subarray(-64).toString()).toBe(`${String(rows - 1).padStart(63, "0")}\n`);
    expect(fs.readdirSync(tmp)).toEqual(["big.csv"]);
    // The syncs' callbacks close the second descriptor: give them a moment.
    for (let i = 0; i < 100 && openFds() > before; i++) await new Promise((r) => setTimeout(r, 10));
    expect(openFds()).toBe(before);
  });

  it("a producer that throws midway: the error passes, no temp file stays, no descriptor leaks", async () => {
    const file = path.join(tmp, "broken.csv");
    const before = openFds();
    const line = `${"x".repeat(1023)}\n`;
    expect(() =>
      writeTextAtomic(file, (out) => {
        for (let k = 0; k < 12 << 10; k++) out.write(line);
        throw new Error("producer failed after 12 MiB");
      }),
    ).toThrow("producer failed after 12 MiB");
    expect(fs.readdirSync(tmp)).toEqual([]);
    for (let i = 0; i < 100 && openFds() > before; i++) await new Promise((r) => setTimeout(r, 10));
    expect(openFds()).toBe(before);
  });
});
