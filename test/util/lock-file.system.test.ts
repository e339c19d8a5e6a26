import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { STORE_LOCK, withStoreLock } from "../../src/memory/persistent/store-lock.js";
import { acquireLockFile, bootId, createExclusive } from "../../src/util/lock-file.js";
import { SymlinkError } from "../../src/util/no-follow.js";
import { tempDir } from "../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
let n = 0;
const fresh = () => {
  const dir = path.join(work, `case-${n++}`);
  fs.mkdirSync(dir);
  return dir;
};

/** The pid of a process that has exited: a lock naming it is a dead run's. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(r.stdout);
}

const holder = (pid: number) =>
  JSON.stringify({ pid, host: os.hostname(), bootId: bootId(), at: Date.now() });

describe("lock files", () => {
  it("createExclusive creates once, and never writes through a link planted at the name", () => {
    const dir = fresh();
    const file = path.join(dir, "a.lock");
    expect(createExclusive(file, "first")).toBe(true);
    expect(createExclusive(file, "second")).toBe(false);
    expect(fs.readFileSync(file, "utf8")).toBe("first");
    const target = path.join(dir, "target");
    fs.symlinkSync(target, path.join(dir, "link.lock"));
    expect(createExclusive(path.join(dir, "link.lock"), "x")).toBe(false);
    expect(fs.existsSync(target)).toBe(false);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("on a file system without hard links, createExclusive falls back to O_EXCL in place", () => {
    const dir = fresh();
    const file = path.join(dir, "a.lock");
    const noLinks = vi.spyOn(fs, "linkSync").mockImplementation(() => {
      throw Object.assign(new Error("EPERM: operation not permitted, link"), { code: "EPERM" });
    });
    try {
      expect(createExclusive(file, "first")).toBe(true);
      expect(createExclusive(file, "second")).toBe(false);
      fs.symlinkSync(path.join(dir, "target"), path.join(dir, "link.lock"));
      expect(createExclusive(path.join(dir, "link.lock"), "x")).toBe(false);
      expect(noLinks).toHaveBeenCalledTimes(3);
    } finally {
      noLinks.mockRestore();
    }
    expect(fs.readFileSync(file, "utf8")).toBe("first");
    expect(fs.existsSync(path.join(dir, "target"))).toBe(false);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("acquireLockFile takes a stale lock over, reports a live one, and refuses a link", () => {
    const dir = fresh();
    const file = path.join(dir, "run.lock");
    fs.writeFileSync(file, "dead");
    expect(acquireLockFile(file, "mine", (b) => b.toString() === "dead")).toBeNull();
    expect(fs.readFileSync(file, "utf8")).toBe("mine");
    expect(acquireLockFile(file, "other", () => false)?.toString()).toBe("mine");
    expect(fs.existsSync(`${file}.break`)).toBe(false);
    const link = path.join(dir, "link.lock");
    fs.symlinkSync(path.join(dir, "elsewhere"), link);
    expect(() => acquireLockFile(link, "x", () => true)).toThrow(SymlinkError);
  });

  it("a store's write waits while a live process holds the lock, and goes on once it is released", async () => {
    const dir = fresh();
    const lock = path.join(dir, STORE_LOCK);
    // Another process holds the lock for 300 ms, then releases it.
    const script = `const fs = require("node:fs");
      fs.writeFileSync(${JSON.stringify(lock)}, JSON.stringify({ pid: process.pid, host: ${JSON.stringify(os.hostname())}, bootId: ${JSON.stringify(bootId())}, at: Date.now() }));
      process.stdout.write("held");
      setTimeout(() => fs.rmSync(${JSON.stringify(lock)}), 300);`;
    const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise((resolve) => child.stdout.once("data", resolve));
    const started = Date.now();
    expect(withStoreLock(dir, () => fs.existsSync(lock))).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(fs.existsSync(lock)).toBe(false);
  });

  it("a lock left by a dead process, or by this one, is taken at once", () => {
    for (const pid of [deadPid(), process.pid]) {
      const dir = fresh();
      fs.writeFileSync(path.join(dir, STORE_LOCK), holder(pid));
      const started = Date.now();
      expect(withStoreLock(dir, () => 1)).toBe(1);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(fs.readdirSync(dir)).toEqual([]);
    }
  });
});
