import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RUN_FILE } from "../../src/rundir/layout.js";
import {
  liveStatus,
  PROCESS_GONE,
  processGone,
  RunLock,
  type RunLockInfo,
  readLock,
} from "../../src/rundir/run-lock.js";
import { STALE_AFTER_MS } from "../../src/util/lock-file.js";
import { tempDir } from "../helpers/cli.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const NOW = Date.parse("2026-01-02T12:00:00.000Z");
const lock = (over: Partial<RunLockInfo>): RunLockInfo => ({
  pid: process.pid,
  host: os.hostname(),
  bootId: readLock(liveDir)?.bootId ?? null,
  startedAt: "2026-01-02T11:00:00.000Z",
  heartbeatAt: "2026-01-02T11:59:59.000Z",
  ...over,
});

// A lock written the way a run writes it, by this (live) process.
const liveDir = path.join(work, "live");
fs.mkdirSync(liveDir);
const held = new RunLock(liveDir);
afterAll(() => held.release());

describe("run.lock liveness", () => {
  it("a lock of this host names a live pid: not gone; a pid that does not exist: gone", () => {
    expect(processGone(lock({}), NOW)).toBe(false);
    // Pids are below 2^22 on Linux; this one is never a process.
    expect(processGone(lock({ pid: 2 ** 30 }), NOW)).toBe(true);
  });

  it("another host: gone once the heartbeat is older than 60 s, whatever its pid", () => {
    const beat = (ago: number) => new Date(NOW - ago).toISOString();
    const other = { host: `not-${os.hostname()}`, pid: process.pid };
    expect(STALE_AFTER_MS).toBe(60_000);
    expect(processGone(lock({ ...other, heartbeatAt: beat(59_000) }), NOW)).toBe(false);
    expect(processGone(lock({ ...other, heartbeatAt: beat(61_000) }), NOW)).toBe(true);
    expect(processGone(lock({ ...other, heartbeatAt: "not a date" }), NOW)).toBe(true);
  });

  it("the same host after a reboot (another boot id) is judged by the heartbeat, not the pid", () => {
    const rebooted = {
      bootId: "another-boot",
      heartbeatAt: new Date(NOW - 3_600_000).toISOString(),
    };
    expect(processGone(lock(rebooted), NOW)).toBe(true);
  });

  it("no lock (a run by an older version) is never judged gone", () => {
    expect(processGone(null, NOW)).toBe(false);
    const dir = path.join(work, "old");
    fs.mkdirSync(dir);
    expect(liveStatus(dir, "running")).toBe("running");
  });

  it("liveStatus: running with a dead pid is interrupted (process gone); other statuses pass through", () => {
    const dir = path.join(work, "dead");
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, RUN_FILE.lock), JSON.stringify(lock({ pid: 2 ** 30 })));
    expect(liveStatus(dir, "running")).toBe(PROCESS_GONE);
    expect(liveStatus(dir, "completed")).toBe("completed");
    expect(liveStatus(liveDir, "running")).toBe("running");
  });

  it("a lock that is a symbolic link is not read (the run counts as lock-less, never gone)", () => {
    const dir = path.join(work, "linked");
    fs.mkdirSync(dir);
    const outside = path.join(work, "outside.json");
    fs.writeFileSync(outside, JSON.stringify(lock({ pid: 2 ** 30 })));
    fs.symlinkSync(outside, path.join(dir, RUN_FILE.lock));
    expect(readLock(dir)).toBeNull();
    expect(liveStatus(dir, "running")).toBe("running");
  });

  it("the lock a run writes holds this pid, host, boot id and ISO times", () => {
    const l = readLock(liveDir);
    expect(l?.pid).toBe(process.pid);
    expect(l?.host).toBe(os.hostname());
    expect(Number.isFinite(Date.parse(l?.heartbeatAt ?? ""))).toBe(true);
    if (process.platform === "linux") expect(l?.bootId).toMatch(/^[0-9a-f-]{36}$/);
  });
});
