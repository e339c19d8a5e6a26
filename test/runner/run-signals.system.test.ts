import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, cliAsync, DATA, ROOT, readJson, runArgs, runDirs, tempDir } from "../helpers/cli.js";
import { barReached, waitExit, waitFor } from "../helpers/wait.js";

const work = tempDir();
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const GOOG = path.join(DATA, "GOOG.csv");
const SLOW = path.join(ROOT, "test/fixtures/strategies/slow.ts");
const fixture = (name: string) => path.join(ROOT, "test/fixtures/strategies", name);

interface Result {
  status: string;
  error: { type: string; message: string } | null;
  period: { bars: number };
  metrics: Record<string, number | null> | null;
  warnings: string[];
}

type Child = ReturnType<typeof cliAsync>;

function stderrOf(child: Child): () => string {
  let text = "";
  child.stderr?.on("data", (d: Buffer) => {
    text += d.toString();
  });
  return () => text;
}

/** The only run directory under `runs`, once its result.json exists (the run is under way). */
async function runStarted(runs: string): Promise<string> {
  await waitFor(() => {
    const [dir] = runDirs(runs);
    return dir !== undefined && fs.existsSync(path.join(dir, "result.json"));
  }, 30_000);
  return runDirs(runs)[0] as string;
}

const lines = (file: string) => fs.readFileSync(file, "utf8").split("\n").filter(Boolean);

/** Every output of a finished run is there, and equity.csv has one row per simulated bar. */
function expectCompleteOutputs(dir: string, result: Result): void {
  for (const f of ["equity.csv", "trades.csv", "orders.jsonl", "decisions.jsonl", "report.html"]) {
    expect(fs.existsSync(path.join(dir, f)), f).toBe(true);
  }
  expect(result.period.bars).toBeGreaterThan(0);
  expect(lines(path.join(dir, "equity.csv")).length - 1).toBe(result.period.bars);
  expect(result.metrics?.bars).toBe(result.period.bars);
  // slow.ts buys at bar 3: the fill at bar 4 is in orders.jsonl, the buy in decisions.jsonl.
  const orders = lines(path.join(dir, "orders.jsonl")).map((l) => JSON.parse(l));
  expect(orders.filter((o) => o.event === "fill")).toHaveLength(1);
  expect(lines(path.join(dir, "decisions.jsonl")).length).toBe(1);
  // The lock is gone once result.json is final; no temp file is left.
  expect(fs.existsSync(path.join(dir, "run.lock"))).toBe(false);
  expect(fs.readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
}

describe("signals end a run like the first Ctrl-C", () => {
  for (const signal of ["SIGTERM", "SIGHUP"] as const) {
    it(`${signal} mid-run: status interrupted, every output complete (exit 1)`, async () => {
      const runs = path.join(work, `runs-${signal}`);
      const mark = path.join(work, `mark-${signal}`);
      const child = cliAsync(
        [
          "run",
          SLOW,
          "--data",
          GOOG,
          "--param",
          "ms=5",
          "--param",
          `mark=${mark}`,
          "--runs-dir",
          runs,
          "--no-ui",
        ],
        work,
      );
      const dir = await runStarted(runs);
      // Past bar 4, where slow.ts's buy (placed at bar 3) fills.
      await barReached(mark, 6);
      const sentAt = performance.now();
      child.kill(signal);
      const code = await waitExit(child);
      const exitMs = performance.now() - sentAt;
      expect(code).toBe(1);
      const result = readJson<Result>(path.join(dir, "result.json"));
      expect(result.status).toBe("interrupted");
      expect(result.period.bars).toBeLessThan(2148);
      expectCompleteOutputs(dir, result);
      // One bar (5 ms) and the writes: well under a second on a quiet machine.
      console.log(`${signal}: exit ${Math.round(exitMs)} ms after the signal`);
    }, 60_000);
  }

  it("a second Ctrl-C exits at once (130) and leaves result.json interrupted, not running", async () => {
    const runs = path.join(work, "runs-double-sigint");
    // 3 s per bar: the first Ctrl-C waits for the bar, the second must not.
    const child = cliAsync(runArgs(SLOW, GOOG, runs, "--param", "ms=3000", "--no-ui"), work);
    const stderr = stderrOf(child);
    const dir = await runStarted(runs);
    await new Promise((r) => setTimeout(r, 300));
    child.kill("SIGINT");
    await waitFor(() => stderr().includes("Interrupted"), 10_000);
    const sentAt = performance.now();
    child.kill("SIGINT");
    const code = await waitExit(child);
    expect(performance.now() - sentAt).toBeLessThan(2000);
    expect(code).toBe(130);
    const result = readJson<Result>(path.join(dir, "result.json"));
    expect(result.status).toBe("interrupted");
    expect(result.warnings.join("\n")).toMatch(/Aborted by a second SIGINT/);
    expect(fs.existsSync(path.join(dir, "run.lock"))).toBe(false);
    // `list` agrees.
    const list = cli(["list", "--runs-dir", runs, "--json"], work);
    expect(JSON.parse(list.stdout).runs[0].status).toBe("interrupted");
  }, 60_000);
});

describe("a strategy that hangs or ends the process fails the run", () => {
  it("a hook whose promise never settles fails the run after --hook-timeout, with the reason", () => {
    const runs = path.join(work, "runs-hang");
    const t0 = performance.now();
    const r = cli(
      [
        "run",
        fixture("never-settles.ts"),
        "--data",
        GOOG,
        "--hook-timeout",
        "1",
        "--runs-dir",
        runs,
      ],
      work,
    );
    const ms = performance.now() - t0;
    expect(r.status, r.stderr).toBe(1);
    const dir = runDirs(runs)[0] as string;
    const result = readJson<Result>(path.join(dir, "result.json"));
    expect(result.status).toBe("failed");
    expect(result.error?.type).toBe("HookTimeoutError");
    // The hang is at bar 5 (index 5 = the sixth row of GOOG.csv).
    const sixth = (lines(path.join(DATA, "GOOG.csv"))[6] as string).split(",")[0] as string;
    expect(result.error?.message).toContain(`The strategy's onBar at ${sixth}`);
    expect(result.error?.message).toContain("did not settle within 1 s (--hook-timeout)");
    expect(r.stderr).toContain("did not settle within 1 s");
    // Bars 0..4 closed: equity.csv has those five rows.
    expect(result.period.bars).toBe(5);
    expect(lines(path.join(dir, "equity.csv")).length - 1).toBe(5);
    expect(ms).toBeGreaterThan(1000);
    expect(fs.existsSync(path.join(dir, "run.lock"))).toBe(false);
  }, 60_000);

  it("--hook-timeout must be a finite number of seconds in range; a valid one is recorded in config.json", () => {
    for (const bad of ["0", "-1", "abc", "Infinity", "NaN", "1e9"]) {
      const r = cli(runArgs(SLOW, GOOG, path.join(work, "x"), "--hook-timeout", bad), work);
      expect(r.status, bad).toBe(2);
      expect(r.stderr, bad).toContain(`--hook-timeout "${bad}" is not valid`);
      expect(r.stderr, bad).toContain(">= 0.1 and <= 86400");
    }
    expect(fs.existsSync(path.join(work, "x"))).toBe(false);
    const runs = path.join(work, "runs-hook-ok");
    const ok = cli(
      [
        "run",
        path.join(ROOT, "strategies/buy-and-hold.ts"),
        "--data",
        GOOG,
        "--hook-timeout",
        "2.5",
        "--runs-dir",
        runs,
      ],
      work,
    );
    expect(ok.status, ok.stderr).toBe(0);
    const config = readJson<{ hookTimeoutMs: number }>(
      path.join(runDirs(runs)[0] as string, "config.json"),
    );
    expect(config.hookTimeoutMs).toBe(2500);
  });

  it("process.exit() in a hook fails the run with the reason, every output written", () => {
    const runs = path.join(work, "runs-exit");
    const r = cli(runArgs(fixture("exits-process.ts"), GOOG, runs), work);
    expect(r.status).toBe(1);
    const dir = runDirs(runs)[0] as string;
    const result = readJson<Result>(path.join(dir, "result.json"));
    expect(result.status).toBe("failed");
    expect(result.error?.type).toBe("StrategyExitError");
    expect(result.error?.message).toContain("The strategy called process.exit(3)");
    expect(r.stderr).toContain("process.exit(3)");
    expect(result.period.bars).toBe(5);
    expect(lines(path.join(dir, "equity.csv")).length - 1).toBe(5);
    expect(fs.existsSync(path.join(dir, "report.html"))).toBe(true);
    expect(fs.existsSync(path.join(dir, "run.lock"))).toBe(false);
  }, 60_000);

  it("process.exit() from a strategy's timer callback: result.json says failed, stderr says why", () => {
    const runs = path.join(work, "runs-exit-timer");
    const r = cli(
      [
        "run",
        fixture("exits-process.ts"),
        "--data",
        GOOG,
        "--param",
        "mode=timer",
        "--runs-dir",
        runs,
      ],
      work,
    );
    expect(r.status).not.toBe(0);
    const dir = runDirs(runs)[0] as string;
    const result = readJson<Result>(path.join(dir, "result.json"));
    expect(result.status).toBe("failed");
    expect(result.error?.message).toContain("process.exit(3)");
    expect(r.stderr).toContain("says failed");
    expect(fs.existsSync(path.join(dir, "run.lock"))).toBe(false);
  }, 60_000);
});

describe("run.lock: a run whose process is gone is not running", () => {
  it("a live run holds a lock with its pid, host and a beating heart; after kill -9, list and show say interrupted (process gone) and rm deletes it; resume refuses it while alive", async () => {
    const runs = path.join(work, "runs-kill9");
    const child = cliAsync(runArgs(SLOW, GOOG, runs, "--no-ui"), work);
    const dir = await runStarted(runs);
    const lockFile = path.join(dir, "run.lock");
    const first = readJson<{ pid: number; host: string; heartbeatAt: string }>(lockFile);
    expect(first.pid).toBe(child.pid);
    expect(first.host).toBe(os.hostname());
    // The heartbeat moves every 5 s.
    await waitFor(
      () => readJson<{ heartbeatAt: string }>(lockFile).heartbeatAt !== first.heartbeatAt,
      8_000,
    );
    // Alive: list says running, rm refuses.
    const alive = JSON.parse(cli(["list", "--runs-dir", runs, "--json"], work).stdout);
    expect(alive.runs[0].status).toBe("running");
    expect(cli(["rm", path.basename(dir), "--runs-dir", runs, "--yes"], work).status).toBe(2);
    // Alive: resume refuses too (two processes would write one directory), and changes nothing.
    const before = fs.readFileSync(path.join(dir, "result.json"), "utf8");
    const resumeAlive = cli(["resume", path.basename(dir), "--runs-dir", runs], work);
    expect(resumeAlive.status).toBe(2);
    expect(resumeAlive.stderr).toContain(`still running (pid ${child.pid}`);
    expect(fs.readFileSync(path.join(dir, "result.json"), "utf8")).toBe(before);

    child.kill("SIGKILL");
    await waitExit(child);
    expect(readJson<Result>(path.join(dir, "result.json")).status).toBe("running");
    const list = JSON.parse(cli(["list", "--runs-dir", runs, "--json"], work).stdout);
    expect(list.runs[0].status).toBe("interrupted (process gone)");
    const listText = cli(["list", "--runs-dir", runs], work).stdout;
    expect(listText).toContain("interrupted (process gone)");
    const filtered = cli(["list", "--runs-dir", runs, "--status", "interrupted", "--json"], work);
    expect(JSON.parse(filtered.stdout).runs).toHaveLength(1);
    const show = cli(["show", path.basename(dir), "--runs-dir", runs, "--json"], work);
    expect(JSON.parse(show.stdout).status).toBe("interrupted (process gone)");
    const showText = cli(["show", path.basename(dir), "--runs-dir", runs], work).stdout;
    expect(showText).toMatch(/Status\s+interrupted \(process gone\)/);
    const rm = cli(["rm", path.basename(dir), "--runs-dir", runs, "--yes"], work);
    expect(rm.status, rm.stderr).toBe(0);
    expect(fs.existsSync(dir)).toBe(false);
  }, 60_000);
});
